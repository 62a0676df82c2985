import { lookupAttribute } from '../../domain/scim-filter.js';
import type { Snapshot } from '../../domain/identity.js';
import type { DirectorySource, ReadOptions } from './directory-source.js';
import { flattenMembers } from './nested-groups.js';
import { groupLinks, snapshotUser } from './scim-resources.js';
import { validateSourceSnapshot } from './source-snapshot.js';
import { UpstreamScimClient, type UpstreamScimOptions } from './upstream-scim.client.js';

/**
 * The `scim` directory source: every User and Group of an upstream SCIM 2.0 server
 * (SOURCE_SCIM_URL, bearer SOURCE_SCIM_TOKEN), as a snapshot. Group members that are groups are
 * flattened to their users; members that are neither a listed user nor a listed group are dropped.
 */
export class ScimDirectorySource implements DirectorySource {
  readonly kind = 'scim';
  private readonly client: UpstreamScimClient;

  constructor(options: UpstreamScimOptions) {
    this.client = new UpstreamScimClient(options);
  }

  async read(options: ReadOptions = {}): Promise<Snapshot> {
    const { signal } = options;
    const users: Record<string, unknown>[] = [];
    for await (const page of this.client.pages('Users', signal)) {
      for (const resource of page) users.push(snapshotUser(resource));
    }
    const resources: unknown[] = [];
    for await (const page of this.client.pages('Groups', signal)) resources.push(...page);
    const groups = this.assembleGroups(resources, users);
    const labels = {
      users: users.map((u) => label(u.id)),
      groups: resources.map((g) => label(lookupAttribute(g, 'id'))),
    };
    return validateSourceSnapshot({ users, groups }, `The upstream SCIM server ${this.client.label}`, labels);
  }

  private assembleGroups(resources: readonly unknown[], users: readonly Record<string, unknown>[]) {
    const userIds = new Set(users.flatMap((u) => (typeof u.id === 'string' ? [u.id] : [])));
    const positions = new Map<string, number>();
    resources.forEach((resource, index) => {
      const id = lookupAttribute(resource, 'id');
      if (typeof id === 'string' && !positions.has(id)) positions.set(id, index);
    });
    const members = flattenMembers(resources.map((r) => groupLinks(r, userIds, positions)));
    return resources.map((resource, index) => ({
      id: lookupAttribute(resource, 'id'),
      displayName: lookupAttribute(resource, 'displayName'),
      members: members[index] ?? [],
    }));
  }
}

/** Problems name resources by their upstream id; by position when they have none. */
function label(id: unknown): string | undefined {
  return typeof id === 'string' ? id : undefined;
}
