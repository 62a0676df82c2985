import type { PolicyKind } from '../../domain/identity-policy.js';
import { attachFacts, itemFacts, type GroupRef } from '../../domain/policy-context.js';
import type { OneRead, ReadOne, SourceIdentity } from '../../domain/source-identity.js';
import { oktaUserSchema, type OktaApiClient } from './okta-api.client.js';
import { userFromOkta } from './okta-event.changes.js';

type OktaOne = Pick<OktaApiClient, 'getUserAsIs' | 'getGroup' | 'listUserGroups' | 'groupMembers' | 'close'>;

/**
 * One Okta user or group read now (provision on demand), as a full read of the okta input reads
 * it (okta-full-read.ts): `GET /api/v1/users/{id}` (a DEPROVISIONED user is one a full read leaves
 * out); `GET /api/v1/groups/{id}` and its members (`/api/v1/groups/{id}/users`; only OKTA_GROUP
 * groups are read). With `membership` (a scope or mapping that reads it), each user's OKTA_GROUP
 * groups are read too (`/api/v1/users/{id}/groups`).
 */
export function oktaReadOne(open: () => OktaOne, membership: boolean): ReadOne {
  return async (kind: PolicyKind, key, options): Promise<OneRead> => {
    const okta = open();
    try {
      return kind === 'users'
        ? await readUser(okta, key, membership)
        : await readGroup(okta, key, membership, options?.signal);
    } finally {
      await okta.close();
    }
  };
}

async function readUser(okta: OktaOne, id: string, membership: boolean): Promise<OneRead> {
  const raw = await okta.getUserAsIs(id);
  if (raw === undefined) return { outcome: 'absent', reason: `Okta has no user ${id}` };
  const user = await userIdentity(okta, raw, membership);
  if ('reason' in user) return { outcome: 'excluded', label: id, reason: user.reason };
  return { outcome: 'found', identity: user };
}

async function readGroup(
  okta: OktaOne,
  id: string,
  membership: boolean,
  signal: AbortSignal | undefined,
): Promise<OneRead> {
  const group = await okta.getGroup(id);
  if (group === undefined) return { outcome: 'absent', reason: `Okta has no group ${id}` };
  if (group.type && group.type !== 'OKTA_GROUP') {
    const reason = `an ${group.type} group: a full read of Okta reads only OKTA_GROUP groups`;
    return { outcome: 'excluded', label: group.profile.name, reason };
  }
  const members: SourceIdentity[] = [];
  for await (const page of okta.groupMembers(id, signal ? { signal } : {})) {
    for (const raw of page) {
      const user = await userIdentity(okta, raw, membership);
      if (!('reason' in user)) members.push(user);
    }
  }
  const item = { id, displayName: group.profile.name, members: members.map((m) => m.id) };
  return {
    outcome: 'found',
    identity: { id, label: group.profile.name, item: attachFacts(item, itemFacts(item)), members },
  };
}

/** A user as the full read makes it, with its Okta attributes (and groups) attached; or why not. */
async function userIdentity(
  okta: OktaOne,
  raw: unknown,
  membership: boolean,
): Promise<SourceIdentity | { reason: string }> {
  const parsed = oktaUserSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      reason: `Okta answered a user the bridge cannot read: ${issue?.path.join('.')} ${issue?.message}`,
    };
  }
  const user = parsed.data;
  if (user.status.toUpperCase() === 'DEPROVISIONED')
    return { reason: 'DEPROVISIONED in Okta: a full read of Okta leaves it out' };
  const groups: GroupRef[] = membership
    ? ((await okta.listUserGroups(user.id)) ?? [])
        .filter((g) => !g.type || g.type === 'OKTA_GROUP')
        .map((g) => ({ id: g.id, name: g.profile.name }))
    : [];
  const item: Record<string, unknown> = { ...userFromOkta(user) };
  attachFacts(item, itemFacts(raw, groups));
  return { id: user.id, label: user.profile.login, item };
}
