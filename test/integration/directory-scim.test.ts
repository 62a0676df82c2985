import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import type { Config } from '../../src/config/schema.js';
import { isBridgeError, type BridgeError } from '../../src/domain/errors.js';
import type { Snapshot } from '../../src/domain/identity.js';
import { startReferenceTarget, type ReferenceTarget } from 'scim-reference-target';
import { buildDirectorySource as createDirectorySource, CATALOG } from '../../src/sources/registry.js';

/**
 * The scim source against a second reference target standing in for an upstream SCIM server, with
 * a page cap of 7 (below the page size asked for). Real: HTTP, the target emulation, the config
 * loader. A tiny node:http server plays an upstream that ignores startIndex.
 */

const TOKEN = 'upstream-scim-token-5521';
const USERS = 25;

let upstream: ReferenceTarget;

beforeAll(async () => {
  upstream = await startReferenceTarget({ token: TOKEN, pageCap: 7 });
  for (let n = 1; n <= USERS; n++) {
    upstream.insertUser({
      id: `up-${n}`,
      externalId: `idp-${n}`,
      userName: `user${n}@example.com`,
      name: { givenName: `Given${n}`, familyName: n === 3 ? 'Núñez' : `Family${n}` },
      emails: [{ value: `user${n}@example.com`, primary: true, type: 'work' }],
      active: n % 10 !== 0,
    });
  }
  upstream.insertGroup({
    id: 'grp-a',
    displayName: 'Alpha',
    members: [{ value: 'up-1' }, { value: 'up-2' }],
  });
  upstream.insertGroup({ id: 'grp-b', externalId: 'idp-g-b', displayName: 'Beta', members: [] });
  upstream.insertGroup({
    id: 'grp-c',
    displayName: 'Gamma',
    members: Array.from({ length: 12 }, (_, i) => ({ value: `up-${i + 10}` })),
  });
});

afterAll(async () => {
  await upstream?.close();
});

function directoryConfig(url: string, token = TOKEN): Config['directory'] {
  return loadConfig(
    {
      REDIS_URL: 'redis://127.0.0.1:9',
      TARGET_URL: 'http://127.0.0.1:9',
      TARGET_TOKEN: 'test-target-token-0001',
      DIRECTORY_SOURCE: 'scim',
      SOURCE_SCIM_URL: url,
      SOURCE_SCIM_TOKEN: token,
    },
    CATALOG,
  ).directory;
}

async function read(url = upstream.scimUrl, token = TOKEN): Promise<Snapshot> {
  const source = createDirectorySource(directoryConfig(url, token), { timeoutMs: 2000 });
  if (source === undefined) throw new Error('no source');
  return source.read();
}

async function readError(url = upstream.scimUrl, token = TOKEN): Promise<BridgeError> {
  const error: unknown = await read(url, token).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

describe('scim source', () => {
  it('pages every user and group, though the upstream returns 7 where 200 were asked for', async () => {
    upstream.resetStats();
    const snapshot = await read();
    expect(snapshot.users).toHaveLength(USERS);
    expect(snapshot.groups).toHaveLength(3);
    const stats = upstream.stats();
    expect(stats.byRoute['GET /Users']).toBe(Math.ceil(USERS / 7));
    expect(stats.byRoute['GET /Groups']).toBe(1);
  });

  it('takes the upstream ids as ids, and not its externalIds', async () => {
    const snapshot = await read();
    expect(snapshot.users.find((u) => u.id === 'up-3')).toEqual({
      id: 'up-3',
      userName: 'user3@example.com',
      name: { givenName: 'Given3', familyName: 'Núñez' },
      emails: [{ value: 'user3@example.com', type: 'work', primary: true }],
      active: true,
    });
    expect(snapshot.users.find((u) => u.id === 'up-10')?.active).toBe(false);
    expect(snapshot.groups.find((g) => g.id === 'grp-b')).toEqual({
      id: 'grp-b',
      displayName: 'Beta',
      members: [],
    });
    expect(snapshot.groups.find((g) => g.id === 'grp-a')?.members).toEqual(['up-1', 'up-2']);
    expect(snapshot.groups.find((g) => g.id === 'grp-c')?.members).toHaveLength(12);
  });

  it('waits out a short outage of the upstream', async () => {
    await upstream.faults.setOutage({ mode: '503', forMs: 200 });
    try {
      const snapshot = await read();
      expect(snapshot.users).toHaveLength(USERS);
    } finally {
      await upstream.faults.reset();
    }
  });

  it('reports a refused token as refused (source_unauthorized, not an outage), without the token', async () => {
    const wrong = 'wrong-upstream-token-0077';
    const error = await readError(upstream.scimUrl, wrong);
    expect(error).toMatchObject({
      code: 'source_unauthorized',
      side: 'source',
      retryable: false,
      status: 401,
    });
    expect(
      error.message.startsWith(`The upstream SCIM server ${upstream.scimUrl} refused the credential (401)`),
    ).toBe(true);
    expect(error.message).toContain('to GET /api/scim/v2/Users');
    expect(JSON.stringify({ message: error.message, stack: error.stack })).not.toContain(wrong);
  });

  it('reports an upstream that is down as retryable', async () => {
    const down = await startReferenceTarget({ token: TOKEN });
    const url = down.scimUrl;
    await down.close();
    const error = await readError(url);
    expect(error).toMatchObject({ code: 'source_unavailable', retryable: true });
    expect(error.message).toMatch(
      /^Cannot reach the upstream SCIM server http:\/\/127\.0\.0\.1:\d+\/api\/scim\/v2: /,
    );
  });

  it('an upstream SCIM Retry-After given as an HTTP date is honoured', async () => {
    // The upstream's clock runs an hour behind: its Retry-After date is 2 s after its own Date
    // (RFC 9110 §10.2.3), and an hour before ours.
    const arrivals: number[] = [];
    const server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path.endsWith('/Users')) arrivals.push(Date.now());
      if (path.endsWith('/Users') && arrivals.length === 1) {
        const serverNow = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
        res.writeHead(503, {
          date: new Date(serverNow).toUTCString(),
          'retry-after': new Date(serverNow + 2000).toUTCString(),
          'content-type': 'application/scim+json',
        });
        res.end(JSON.stringify({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '503' }));
        return;
      }
      const resources = path.endsWith('/Users') ? [{ id: 'u1', userName: 'u1@example.com' }] : [];
      res.setHeader('content-type', 'application/scim+json');
      res.end(JSON.stringify({ totalResults: resources.length, Resources: resources }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const snapshot = await read(`http://127.0.0.1:${port}/scim/v2`);
      expect(snapshot.users.map((u) => u.id)).toEqual(['u1']);
      expect(arrivals).toHaveLength(2);
      expect((arrivals[1] ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(1950);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe('against an upstream that misbehaves', () => {
    let server: Server;
    let url = '';
    let answer: (resource: string, startIndex: number) => unknown = () => ({});

    beforeAll(async () => {
      server = createServer((req, res) => {
        const requested = new URL(req.url ?? '/', 'http://x');
        const startIndex = Number(requested.searchParams.get('startIndex'));
        res.setHeader('content-type', 'application/scim+json');
        res.end(JSON.stringify(answer(requested.pathname.replace(/^.*\//, ''), startIndex)));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}/scim/v2`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const user = (n: number) => ({ id: `u${n}`, userName: `u${n}@example.com` });

    it('stops with source_invalid when the upstream ignores startIndex', async () => {
      answer = () => ({ totalResults: 100, Resources: [user(1), user(2)] });
      const error = await readError(url);
      expect(error.code).toBe('source_invalid');
      expect(error.message).toContain('/Users: the page at startIndex 3 repeats resources already read');
    });

    it('names upstream resources by id when they break the snapshot rules', async () => {
      answer = (resource, start) =>
        resource === 'Groups'
          ? { totalResults: 0 }
          : start === 1
            ? { totalresults: 3, resources: [user(1), { id: 'u2', username: 'U1@example.com' }] }
            : { totalResults: 3, Resources: start === 3 ? [{ id: 'u3' }] : [] };
      const error = await readError(url);
      expect(error.code).toBe('source_invalid');
      expect(error.problems).toEqual([
        'users["u2"].userName: duplicate of users["u1"] (case-insensitive)',
        'users["u3"].userName: required',
      ]);
    });

    it('flattens nested groups, cycles cut, and drops members that are neither a listed user nor a group', async () => {
      const groups = [
        { id: 'g-a', displayName: 'A', members: [{ value: 'u1' }, { value: 'g-b', type: 'Group' }] },
        { id: 'g-b', displayName: 'B', members: [{ value: 'u2' }, { value: 'g-a' }] },
        {
          id: 'g-c',
          displayName: 'C',
          // A member typed User is never a group, though a group has its id; `nobody` is not listed.
          members: [{ value: 'g-a', type: 'User' }, { value: 'nobody' }, { value: 'u3' }, { value: 'g-b' }],
        },
      ];
      answer = (resource, start) => {
        const all = resource === 'Groups' ? groups : [user(1), user(2), user(3)];
        return { totalResults: all.length, Resources: start === 1 ? all : [] };
      };
      const snapshot = await read(url);
      expect(snapshot.groups).toEqual([
        { id: 'g-a', displayName: 'A', members: ['u1', 'u2'] },
        { id: 'g-b', displayName: 'B', members: ['u2', 'u1'] },
        { id: 'g-c', displayName: 'C', members: ['u3', 'u2', 'u1'] },
      ]);
    });

    it('refuses an answer that is not a ListResponse, or an empty one that claims resources', async () => {
      answer = () => ['not', 'a', 'list'];
      const error = await readError(url);
      expect(error.code).toBe('source_invalid');
      expect(error.message).toContain('the answer is not a SCIM ListResponse');
      // Read as "no users", this would deprovision everyone.
      answer = () => ({ totalResults: 5 });
      expect((await readError(url)).message).toContain('/Users: totalResults > 0 but no Resources');
    });
  });
});
