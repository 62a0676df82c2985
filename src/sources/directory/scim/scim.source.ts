import type { Snapshot } from '../../../domain/identity.js';
import { SOURCE_BATCH, type SnapshotSink } from '../../../domain/snapshot-sink.js';
import { collectSnapshot } from '../collect-snapshot.js';
import type { DirectorySource, ReadOptions } from '../directory-source.js';
import { flattenMembers } from '../ldap/nested-groups.js';
import { groupLinks, heldGroup, snapshotUser, type HeldGroup } from './scim-resources.js';
import { UpstreamScimClient, upstreamLabel, type UpstreamScimOptions } from './upstream-scim.client.js';

/**
 * The `scim` directory source: every User and Group of an upstream SCIM 2.0 server
 * (SOURCE_SCIM_URL, bearer SOURCE_SCIM_TOKEN), as a stream of snapshot items. Users go to the sink
 * page by page. Groups are held until all are read (groups are a few percent of a directory: their
 * graph, reduced to ids, is what the process holds), so that members that are groups can be
 * flattened to their users; members that are neither a listed user nor a listed group are dropped.
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
        users.map((u) => ({ label: label(u.id) })),
      );
    }
    const groups: HeldGroup[] = [];
    for await (const page of client.pages('Groups', signal)) groups.push(...page.map(heldGroup));
    await this.sendGroups(sink, groups);
  }

  private async sendGroups(sink: SnapshotSink, groups: readonly HeldGroup[]): Promise<void> {
    const positions = new Map<string, number>();
    groups.forEach((group, index) => {
      if (typeof group.id === 'string' && !positions.has(group.id)) positions.set(group.id, index);
    });
    const values = [...new Set(groups.flatMap((g) => g.members.map((m) => m.value)))];
    const known = new Set<string>();
    for (let i = 0; i < values.length; i += SOURCE_BATCH) {
      const batch = values.slice(i, i + SOURCE_BATCH);
      const answers = await sink.knownUsers(batch);
      batch.forEach((value, n) => answers[n] === true && known.add(value));
    }
    const members = flattenMembers(groups.map((group) => groupLinks(group, known, positions)));
    for (let i = 0; i < groups.length; i += SOURCE_BATCH) {
      const batch = groups.slice(i, i + SOURCE_BATCH);
      const items = batch.map((group, n) => ({
        id: group.id,
        displayName: group.displayName,
        members: members[i + n] ?? [],
      }));
      await sink.add(
        'groups',
        items,
        batch.map((group) => ({ label: label(group.id) })),
      );
    }
  }
}

/** Problems name resources by their upstream id; by position when they have none. */
function label(id: unknown): string | undefined {
  return typeof id === 'string' ? id : undefined;
}
