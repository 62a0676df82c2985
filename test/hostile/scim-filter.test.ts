import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTER_LIMITS } from '../../src/domain/scim-filter.js';
import {
  repeatTerms,
  SEARCH_REQUEST,
  startScimFixture,
  USER_SCHEMA,
  type ScimFixture,
} from '../support/scim-fixture.js';
import { monitorRedis } from '../support/redis-monitor.js';
import { testRedisUrl } from '../support/redis.js';

// Hostile SCIM filters (issue 14, item 1): huge, long, deep. Each is refused with a 400
// invalidFilter naming the limit it broke, quickly and without a crash; the server answers
// normally afterwards. Filters inside the limits still find what they should, also when their
// candidates are more than one chunk of Redis reads.

describe('hostile SCIM filters', () => {
  let scim: ScimFixture;
  const search = (path: string, filter: string) =>
    scim.post(`${path}/.search`, { schemas: [SEARCH_REQUEST], filter });
  const stillServes = async () => {
    const res = await scim.get('/Users', { count: '1' }).expect(200);
    expect(res.body.totalResults).toBeGreaterThan(0);
  };

  beforeAll(async () => {
    scim = await startScimFixture();
    await scim.createUser('first@example.com');
  });
  afterAll(async () => {
    await scim.close();
  });

  it('refuses a search of 45,000 "or" terms (945 KB) with a small 400, and keeps serving', async () => {
    // The request: one Redis read per term and a recursive evaluation killed the process.
    const filter = repeatTerms(45_000, (i) => `emails eq "${i}"`, ' or ');
    expect(filter.length).toBeGreaterThan(900_000);
    for (const path of ['/Users', '/Groups', '']) {
      const res = await search(path, filter).expect(400);
      expect(res.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
      expect(res.body.detail).toContain(`longer than ${FILTER_LIMITS.maxLength} characters`);
      expect(res.text.length).toBeLessThan(1_000);
    }
    await stillServes();
  });

  it('refuses more terms than the limit, even in a short filter, and takes the limit itself', async () => {
    const over = repeatTerms(FILTER_LIMITS.maxTerms + 1, (i) => `id eq "${i}"`, ' or ');
    expect(over.length).toBeLessThan(FILTER_LIMITS.maxLength);
    const refused = await search('/Users', over).expect(400);
    expect(refused.body.scimType).toBe('invalidFilter');
    expect(refused.body.detail).toContain(`more than ${FILTER_LIMITS.maxTerms} attribute expressions`);
    const inValueFilters = repeatTerms(FILTER_LIMITS.maxTerms + 1, (i) => `value eq "${i}"`, ' or ');
    const valuePath = await scim.get('/Groups', { filter: `members[${inValueFilters}]` }).expect(400);
    expect(valuePath.body.detail).toContain('attribute expressions');
    const names = Array.from({ length: FILTER_LIMITS.maxTerms }, (_, i) => `at-limit-${i}@example.com`);
    await scim.createUser(names[7] ?? '');
    await scim.createUser(names[FILTER_LIMITS.maxTerms - 1] ?? '');
    const atLimit = names.map((name) => `userName eq "${name.toUpperCase()}"`).join(' or ');
    const found = await search('/Users', atLimit).expect(200);
    expect(found.body.totalResults).toBe(2);
    expect(found.body.Resources.map((user: { userName: string }) => user.userName)).toEqual([
      names[7],
      names[FILTER_LIMITS.maxTerms - 1],
    ]);
  });

  it('refuses 3,000 nested parentheses, deep "not"s and deep value filters; takes the limit itself', async () => {
    const nested = `${'('.repeat(3_000)}userName eq "first@example.com"${')'.repeat(3_000)}`;
    const res = await search('/Users', nested).expect(400);
    expect(res.body).toMatchObject({ scimType: 'invalidFilter' });
    expect(res.body.detail).toContain(`nested deeper than ${FILTER_LIMITS.maxDepth} levels`);
    const nots = `${'not ('.repeat(FILTER_LIMITS.maxDepth + 1)}active eq true${')'.repeat(FILTER_LIMITS.maxDepth + 1)}`;
    expect((await search('/Users', nots).expect(400)).body.detail).toContain('nested deeper');
    const deepInside = `emails[${'('.repeat(FILTER_LIMITS.maxDepth)}value pr${')'.repeat(FILTER_LIMITS.maxDepth)}]`;
    expect((await search('/Users', deepInside).expect(400)).body.detail).toContain('nested deeper');
    const atLimit = `${'('.repeat(FILTER_LIMITS.maxDepth)}userName eq "FIRST@example.com"${')'.repeat(FILTER_LIMITS.maxDepth)}`;
    expect((await search('/Users', atLimit).expect(200)).body.totalResults).toBe(1);
    await stillServes();
  });

  it('refuses the same in a PATCH path, as invalidPath, changing nothing', async () => {
    const group = await scim
      .post('/Groups', { displayName: 'Hostile paths', members: [{ value: 'm-1' }] })
      .expect(201);
    const id = group.body.id as string;
    const values = repeatTerms(FILTER_LIMITS.maxTerms + 1, (i) => `value eq "m-${i}"`, ' or ');
    const long = repeatTerms(1_000, (i) => `value eq "m-${i}"`, ' or ');
    for (const path of [`members[${values}]`, `members[${long}]`, `members[${'('.repeat(3_000)}`]) {
      const res = await scim.patch(`/Groups/${id}`, { op: 'remove', path }).expect(400);
      expect(res.body.scimType).toBe('invalidPath');
      expect(res.text.length).toBeLessThan(1_000);
    }
    const read = await scim.get(`/Groups/${id}`).expect(200);
    expect(read.body.members).toEqual([expect.objectContaining({ value: 'm-1' })]);
  });

  it('reads candidates spanning several chunks in bounded commands, and finds every match', async () => {
    const users = Array.from({ length: 1_203 }, (_, i) => ({
      op: 'upsertUser' as const,
      user: { id: `bulk-${i}`, userName: `bulk-${i}@example.com`, active: true },
      extra: { title: i % 2 === 0 ? 'even' : 'odd' },
    }));
    const pushed = scim.store.api.as('scim');
    await pushed.apply(users);
    await pushed.upsertGroup({
      id: 'bulk-group',
      displayName: 'Bulk',
      members: users.map((change) => change.user.id),
    });
    const filter = 'groups.value eq "bulk-group" and title eq "odd"';
    const page = await watchingRedis(scim, () =>
      scim.get('/Users', { filter, startIndex: '600', count: '5' }).expect(200),
    );
    expect(page.body).toMatchObject({ totalResults: 601, startIndex: 600, itemsPerPage: 2 });
    expect(page.body.Resources.map((user: { id: string }) => user.id)).toEqual(['bulk-1199', 'bulk-1201']);
    const exact = await scim.get('/Users', { filter: 'groups eq "bulk-group"', count: '0' }).expect(200);
    expect(exact.body.totalResults).toBe(1_203);
  });

  /**
   * Runs `task` while watching the commands Redis receives (MONITOR) under this fixture's prefix,
   * and checks that none of them carries more than a chunk of ids (500) in its arguments.
   */
  async function watchingRedis<T>(fixture: ScimFixture, task: () => Promise<T>): Promise<T> {
    const prefix = fixture.config.redis.keyPrefix;
    const largest: number[] = [0];
    let ended = false;
    const monitor = await monitorRedis(testRedisUrl(), (args) => {
      if (args[0]?.toLowerCase() === 'echo' && args[1] === `${prefix}:watched`) ended = true;
      else if (args.some((arg) => arg.startsWith(prefix))) largest.push(args.length);
    });
    try {
      const result = await task();
      // Every command of the task reached the monitor before this one did.
      await fixture.store.redis.echo(`${prefix}:watched`);
      await expect.poll(() => ended).toBe(true);
      expect(largest.length).toBeGreaterThan(1);
      expect(Math.max(...largest)).toBeLessThanOrEqual(502);
      return result;
    } finally {
      monitor.close();
    }
  }

  it('answers a request that fails inside Redis with a 5xx for that request alone', async () => {
    // A key of the wrong type makes Redis refuse one read of one request (WRONGTYPE).
    await scim.store.redis.set(scim.store.keys.members('broken-group'), 'not a set');
    const [broken, others] = await Promise.all([
      scim.get('/Users', { filter: 'groups.value eq "broken-group"' }),
      Promise.all(Array.from({ length: 5 }, () => scim.get('/Users', { count: '1' }))),
    ]);
    expect(broken.status).toBe(500);
    expect(broken.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'] });
    expect(broken.text).not.toContain('WRONGTYPE');
    expect(others.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    await stillServes();
    const body = { schemas: [USER_SCHEMA], userName: 'after-failure@example.com' };
    await scim.post('/Users', body).expect(201);
  });
});
