import type { DirectMembers } from '../../../domain/group-graph.js';
import { sendFlattenedGroups, type HeldGroup } from '../../../domain/held-groups.js';
import type { Snapshot } from '../../../domain/identity.js';
import { SOURCE_BATCH, type SnapshotSink } from '../../../domain/snapshot-sink.js';
import { collectSnapshot } from '../collect-snapshot.js';
import type { DirectorySource, ReadOptions } from '../directory-source.js';
import { directMembers, heldGroup, resourceLabel, snapshotUser, type ScimMember } from './scim-resources.js';
import { UpstreamScimClient, upstreamLabel, type UpstreamScimOptions } from './upstream-scim.client.js';

/**
 * The `scim` directory source: every User and Group of an upstream SCIM 2.0 server
 * (SOURCE_SCIM_URL, bearer SOURCE_SCIM_TOKEN), as a stream of snapshot items. Users go to the sink
 * page by page. Groups are held until all are read (groups are a few percent of a directory: their
 * graph, reduced to ids, is what the process holds), so that members that are groups can be
 * flattened to their users (domain/held-groups.ts); members that are neither a listed user nor a
 * listed group are dropped.
 * Each read has a client of its own (its connections closed at the end).
 */
export class ScimDirectorySource implements DirectorySource {
  constructor(private readonly options: UpstreamScimOptions) {}

  get label(): string {
    return `The upstream SCIM server ${upstreamLabel(this.options.url)}`;
  }

  read(options: ReadOptions = {}): Promise<Snapshot> {
    return collectSnapshot(this, options);
  }

  async stream(sink: SnapshotSink, options: ReadOptions = {}): Promise<void> {
    const client = new UpstreamScimClient(this.options);
    try {
      await this.streamFrom(client, sink, options.signal);
    } finally {
      await client.close();
    }
  }

  private async streamFrom(
    client: UpstreamScimClient,
    sink: SnapshotSink,
    signal?: AbortSignal,
  ): Promise<void> {
    for await (const page of client.pages('Users', signal)) {
      const users = page.map(snapshotUser);
      await sink.add(
        'users',
        users,
        users.map((u) => ({ label: resourceLabel(u.id) })),
      );
    }
    const groups: HeldGroup<ScimMember>[] = [];
    for await (const page of client.pages('Groups', signal)) groups.push(...page.map(heldGroup));
    await sendFlattenedGroups(sink, groups, (members, held) => resolveMembers(sink, members, held));
  }
}

/** Groups' members, the values that are users the read listed asked of the sink a batch at a time. */
async function resolveMembers(
  sink: SnapshotSink,
  groups: readonly (readonly ScimMember[])[],
  held: (key: string) => boolean,
): Promise<DirectMembers[]> {
  const values = [...new Set(groups.flatMap((members) => members.map((m) => m.value)))];
  const users = new Set<string>();
  for (let i = 0; i < values.length; i += SOURCE_BATCH) {
    const batch = values.slice(i, i + SOURCE_BATCH);
    const answers = await sink.knownUsers(batch);
    batch.forEach((value, n) => answers[n] === true && users.add(value));
  }
  return groups.map((members) => directMembers(members, users, held));
}
