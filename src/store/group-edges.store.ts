import type { DirectMembers, MemoryGroupEdges, StoredGroupEdges } from '../domain/group-graph.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';

const BATCH = 500;

interface Packed {
  u: readonly string[];
  g: readonly string[];
}

/**
 * The nested groups of one input as its source last stated them (keys.ts, P:input:graph:<owner>
 * and P:input:graph-up:<owner>): each group's direct members, and each group's parents. A full read
 * replaces them whole (written beside, then renamed over: a reader sees the old graph or the new);
 * a change read updates the groups it was told of, and finds there the ancestors whose flattened
 * members change (domain/group-graph.ts). Only the input's one change read at a time writes them.
 */
export class GroupEdgesStore implements StoredGroupEdges {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly owner: string,
  ) {}

  async members(groupIds: readonly string[]): Promise<ReadonlyMap<string, DirectMembers>> {
    const out = new Map<string, DirectMembers>();
    for (let i = 0; i < groupIds.length; i += BATCH) {
      const ids = groupIds.slice(i, i + BATCH);
      const values = await storeCall(() => this.redis.hmget(this.key('down'), ...ids));
      values.forEach((value, n) => {
        if (value !== null) out.set(ids[n] as string, unpack(value));
      });
    }
    return out;
  }

  async parents(groupIds: readonly string[]): Promise<ReadonlyMap<string, readonly string[]>> {
    const out = new Map<string, readonly string[]>();
    for (let i = 0; i < groupIds.length; i += BATCH) {
      const ids = groupIds.slice(i, i + BATCH);
      const values = await storeCall(() => this.redis.hmget(this.key('up'), ...ids));
      values.forEach((value, n) => {
        if (value !== null) out.set(ids[n] as string, JSON.parse(value) as string[]);
      });
    }
    return out;
  }

  /** Whether a full read has left a graph (a change read without one asks for a full read). */
  async exists(): Promise<boolean> {
    return (await storeCall(() => this.redis.exists(this.key('down')))) === 1;
  }

  /** Replaces the whole graph with a full read's. */
  async replace(edges: MemoryGroupEdges): Promise<void> {
    const ids = [...edges.ids()];
    await storeCall(() => this.redis.del(this.key('down', true), this.key('up', true)));
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const [down, up] = await Promise.all([edges.members(batch), edges.parents(batch)]);
      const tx = this.redis.multi();
      for (const [id, members] of down) tx.hset(this.key('down', true), id, pack(members));
      for (const [id, parents] of up) tx.hset(this.key('up', true), id, JSON.stringify(parents));
      await storeCall(() => tx.exec());
    }
    // An empty graph is a hash of one placeholder field, so that "read, nothing nested" is told from "never read".
    await storeCall(() =>
      this.redis
        .multi()
        .hset(this.key('down', true), '', pack({ users: [], groups: [] }))
        .rename(this.key('down', true), this.key('down'))
        .del(this.key('up'))
        .exec(),
    );
    if (ids.length > 0 && (await storeCall(() => this.redis.exists(this.key('up', true)))) === 1)
      await storeCall(() => this.redis.rename(this.key('up', true), this.key('up')));
  }

  /** Sets the direct members of these groups (null: the group is gone), keeping the parents in step. */
  async update(changes: ReadonlyMap<string, DirectMembers | null>): Promise<void> {
    const ids = [...changes.keys()];
    if (ids.length === 0) return;
    const before = await this.members(ids);
    const touched = new Set<string>();
    for (const id of ids) {
      for (const g of before.get(id)?.groups ?? []) touched.add(g);
      for (const g of changes.get(id)?.groups ?? []) touched.add(g);
    }
    const parents = new Map([...(await this.parents([...touched]))].map(([k, v]) => [k, new Set(v)]));
    for (const id of ids) {
      for (const g of before.get(id)?.groups ?? []) parents.get(g)?.delete(id);
      for (const g of changes.get(id)?.groups ?? [])
        (parents.get(g) ?? parents.set(g, new Set()).get(g))?.add(id);
    }
    const tx = this.redis.multi();
    for (const [id, members] of changes) {
      if (members === null) tx.hdel(this.key('down'), id);
      else tx.hset(this.key('down'), id, pack(members));
    }
    for (const [id, set] of parents) {
      if (set.size === 0) tx.hdel(this.key('up'), id);
      else tx.hset(this.key('up'), id, JSON.stringify([...set]));
    }
    await storeCall(() => tx.exec());
  }

  private key(part: 'down' | 'up', next?: boolean): string {
    return this.keys.inputGraph(this.owner, part, next);
  }
}

function pack(members: DirectMembers): string {
  return JSON.stringify({ u: members.users, g: members.groups } satisfies Packed);
}

function unpack(value: string): DirectMembers {
  const packed = JSON.parse(value) as Packed;
  return { users: packed.u, groups: packed.g };
}
