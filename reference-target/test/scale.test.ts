import { describe, expect, it } from 'vitest';
import { parseTargetFilter as parseFilter } from '../src/target-filter.js';
import { indexedCandidates } from '../src/indexed-query.js';
import { filterQuery, scim, startTarget, type ListBody } from './scim-http.js';

// The benchmark's scale on a real reference target over real HTTP. Bounds are generous: they tell
// an index from a scan of 100,000 users (hundreds of ms per request), not fast from slow machines.

const USERS = 100_000;
const GROUPS = 5_000;
const MEMBERS_PER_GROUP = 20;

describe('reference target at benchmark scale', () => {
  it('seeds 100,000 users and 5,000 groups of 20 in-process in well under 5 s, and answers indexed look-ups', async () => {
    const target = await startTarget();
    const started = performance.now();
    const ids: string[] = [];
    for (let index = 0; index < USERS; index += 1) {
      const user = target.insertUser({
        userName: `user${index}@example.com`,
        externalId: `u-${index}`,
        name: { givenName: 'Given', familyName: `Family${index}` },
        emails: [{ value: `user${index}@example.com`, primary: true }],
      });
      ids.push(user.id);
    }
    for (let index = 0; index < GROUPS; index += 1) {
      const members = Array.from({ length: MEMBERS_PER_GROUP }, (_, offset) => ({
        value: ids[(index * MEMBERS_PER_GROUP + offset) % USERS] ?? '',
      }));
      target.insertGroup({ displayName: `Group ${index}`, externalId: `g-${index}`, members });
    }
    expect(performance.now() - started).toBeLessThan(5000);

    const lookups = [
      `/Users${filterQuery('userName eq "USER77777@example.com"')}`,
      `/Users${filterQuery('externalId eq "u-12345"')}`,
      `/Users${filterQuery(`id eq "${ids[99_999] ?? ''}"`)}`,
      `/Groups${filterQuery('displayName eq "group 4999"')}`,
      `/Groups${filterQuery(`members[value eq "${ids[500] ?? ''}"]`, '&excludedAttributes=members')}`,
    ];
    const lookupsStarted = performance.now();
    for (let round = 0; round < 40; round += 1) {
      for (const path of lookups)
        expect((await scim<ListBody>(target, 'GET', path)).body.totalResults).toBe(1);
    }
    expect(performance.now() - lookupsStarted).toBeLessThan(10_000);

    const lastPage = await scim<ListBody>(target, 'GET', `/Users?startIndex=${USERS - 49}&count=100`);
    expect(lastPage.body).toMatchObject({ totalResults: USERS, itemsPerPage: 50 });
    expect(lastPage.body.Resources.at(-1)?.id).toBe(ids.at(-1));
  }, 60_000);

  it('answers the equality filters the bridge sends from indexes', () => {
    const lookup = (attribute: string, value: string): ReadonlySet<string> | undefined =>
      ['username', 'externalid', 'members.value'].includes(attribute)
        ? new Set([`${attribute}=${value}`])
        : undefined;
    expect(indexedCandidates(parseFilter('userName eq "a"'), lookup)).toEqual(new Set(['username=a']));
    expect(indexedCandidates(parseFilter('members[value eq "u"]'), lookup)).toEqual(
      new Set(['members.value=u']),
    );
    expect(indexedCandidates(parseFilter('externalId eq "e" and active eq true'), lookup)).toEqual(
      new Set(['externalid=e']),
    );
    expect(indexedCandidates(parseFilter('externalId eq "e" or userName eq "a"'), lookup)).toEqual(
      new Set(['externalid=e', 'username=a']),
    );
    expect(indexedCandidates(parseFilter('externalId eq "e" or active eq true'), lookup)).toBeUndefined();
    expect(indexedCandidates(parseFilter('userName co "a"'), lookup)).toBeUndefined();
  });
});
