import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flattenGroups, MemoryGroupEdges, withAncestors } from '../../src/domain/group-graph.js';
import { silentLogger } from '../../src/ops/logger.js';
import { createStoreSide, type StoreSide } from '../../src/wiring/store-side.js';
import { testConfig } from '../support/config.js';
import { deleteKeys } from '../support/redis.js';

// Real: the group graph's walks, in memory and over an input's graph kept in Redis. Nested
// groups: A ⊃ B ⊃ C ⊃ A (a cycle), D ⊃ C, E alone.
function nested(): MemoryGroupEdges {
  const edges = new MemoryGroupEdges();
  edges.set('A', { users: ['u1'], groups: ['B'] });
  edges.set('B', { users: ['u2', 'u1'], groups: ['C'] });
  edges.set('C', { users: ['u3'], groups: ['A'] });
  edges.set('D', { users: [], groups: ['C', 'gone'] });
  edges.set('E', { users: ['u5'], groups: [] });
  return edges;
}

describe('the group graph', () => {
  let store: StoreSide;
  beforeAll(async () => {
    store = await createStoreSide(testConfig(), 'worker', silentLogger());
  });
  afterAll(async () => {
    await store.close();
    await deleteKeys(store.keys.prefix);
  });

  it('flattens nested groups to their users, whatever the cycles, and finds the ancestors of a change', async () => {
    const edges = nested();
    const flat = await flattenGroups(edges, ['A', 'C', 'D', 'E']);
    expect(flat.get('A')).toEqual(['u1', 'u2', 'u3']);
    expect(flat.get('C')?.sort()).toEqual(['u1', 'u2', 'u3']);
    expect(flat.get('D')?.sort()).toEqual(['u1', 'u2', 'u3']);
    expect(flat.get('E')).toEqual(['u5']);
    expect([...(await withAncestors(edges, ['C']))].sort()).toEqual(['A', 'B', 'C', 'D']);
    expect([...(await withAncestors(edges, ['E']))]).toEqual(['E']);
  });

  it('keeps an input graph in Redis: replaced by a full read, updated by a change read', async () => {
    const graph = store.sync.groupEdges('directory:graph');
    expect(await graph.exists()).toBe(false);
    await graph.replace(nested());
    expect(await graph.exists()).toBe(true);
    expect((await flattenGroups(graph, ['D'])).get('D')?.sort()).toEqual(['u1', 'u2', 'u3']);

    // C leaves the cycle and takes E in; A is gone: D's and B's users change, E's parents too.
    await graph.update(
      new Map([
        ['C', { users: ['u3'], groups: ['E'] }],
        ['A', null],
      ]),
    );
    const flat = await flattenGroups(graph, ['B', 'D']);
    expect(flat.get('B')?.sort()).toEqual(['u1', 'u2', 'u3', 'u5']);
    expect(flat.get('D')?.sort()).toEqual(['u3', 'u5']);
    expect([...(await withAncestors(graph, ['E']))].sort()).toEqual(['B', 'C', 'D', 'E']);
    expect((await graph.parents(['B'])).get('B')).toBeUndefined();

    // A full read replaces the whole graph.
    const fresh = new MemoryGroupEdges();
    fresh.set('X', { users: ['u9'], groups: [] });
    await graph.replace(fresh);
    expect([...(await graph.members(['B', 'X'])).keys()]).toEqual(['X']);
    expect((await graph.parents(['C', 'E'])).size).toBe(0);
  });
});
