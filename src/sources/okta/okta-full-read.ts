import type { FullRead } from '../../domain/input.js';
import { SOURCE_BATCH, type ReadOptions, type SnapshotSink } from '../../domain/snapshot-sink.js';
import { oktaGroupSchema, oktaUserSchema, type OktaLists } from './okta-api.client.js';
import { userFromOkta } from './okta-event.changes.js';
import { attachFacts, itemFacts } from '../../domain/policy-context.js';

/**
 * Okta in full, as a full sync of the `okta` input reads it (SPEC §5.3): Okta's users — the list
 * leaves DEPROVISIONED users out (and so does this read, should one come), a SUSPENDED user is
 * inactive — mapped as the hook path maps a user from Okta's API (userFromOkta); then its
 * OKTA_GROUP groups with their members (groups of apps and Okta's built-in ones are not Okta's to
 * give). Members that are not users of the read (a deactivated user still in a group) are left
 * out. Everything is paged, and waits out Okta's rate limits. An item Okta answers in a shape the
 * bridge cannot read goes to the sink as it is, so the sync reports it like any bad item.
 */
export function oktaFullRead(
  label: string,
  open: () => OktaLists & { close(): Promise<void> },
  /** Attach each user's Okta attributes (profile, status) for a scope or mapping to read. */
  facts = false,
): FullRead {
  return {
    label,
    sourceName: 'okta',
    stream: async (sink, options) => {
      const okta = open();
      try {
        await streamOkta(okta, sink, options ?? {}, facts);
      } finally {
        await okta.close();
      }
    },
  };
}

async function streamOkta(
  okta: OktaLists,
  sink: SnapshotSink,
  options: ReadOptions,
  facts: boolean,
): Promise<void> {
  const pages = options.signal ? { signal: options.signal } : {};
  for await (const page of okta.users(pages)) {
    const users = page.flatMap((raw) => {
      const user = oktaUserSchema.safeParse(raw);
      if (!user.success) return [raw];
      if (user.data.status.toUpperCase() === 'DEPROVISIONED') return [];
      const item = userFromOkta(user.data);
      return [facts ? attachFacts(item, itemFacts(raw)) : item];
    });
    await sink.add('users', users, users.map(origin));
  }
  let batch: unknown[] = [];
  for await (const page of okta.oktaGroups(pages)) {
    for (const raw of page) {
      batch.push(await groupItem(okta, sink, raw, pages));
      if (batch.length < SOURCE_BATCH) continue;
      await sink.add('groups', batch, batch.map(origin));
      batch = [];
    }
  }
  if (batch.length > 0) await sink.add('groups', batch, batch.map(origin));
}

/** A group as a snapshot item, with its members; as Okta gave it when it cannot be read. */
async function groupItem(
  okta: OktaLists,
  sink: SnapshotSink,
  raw: unknown,
  pages: { signal?: AbortSignal },
): Promise<unknown> {
  const group = oktaGroupSchema.safeParse(raw);
  if (!group.success) return raw;
  const { id, profile } = group.data;
  return { id, displayName: profile.name, members: await members(okta, sink, id, pages) };
}

async function members(
  okta: OktaLists,
  sink: SnapshotSink,
  groupId: string,
  pages: { signal?: AbortSignal },
): Promise<string[]> {
  const ids: string[] = [];
  for await (const page of okta.groupMembers(groupId, pages)) {
    const listed = page.flatMap((raw) => {
      const member = oktaUserSchema.pick({ id: true }).safeParse(raw);
      return member.success ? [member.data.id] : [];
    });
    const known = await sink.knownUsers(listed);
    ids.push(...listed.filter((_, i) => known[i] === true));
  }
  return ids;
}

/** Problems name an item by its Okta id. */
function origin(item: unknown): { label?: string } {
  const id = typeof item === 'object' && item !== null && 'id' in item ? item.id : undefined;
  return typeof id === 'string' ? { label: id } : {};
}
