import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/api-client/api-client.js';
import { bearerAuth } from '../../../src/api-client/auth/auth-strategy.js';
import { linkPages } from '../../../src/api-client/paging/link-pages.js';
import { nextLinkPages } from '../../../src/api-client/paging/next-link-pages.js';
import { pageTokenPages } from '../../../src/api-client/paging/page-token-pages.js';
import { scimPages } from '../../../src/api-client/paging/scim-pages.js';
import { isBridgeError, type BridgeError } from '../../../src/domain/errors.js';
import { json, startScripted, type Script, type ScriptedServer } from '../../support/scripted-http.js';

// The paging helpers against real node:http servers that script each page, and a second server on
// another origin that must never be asked anything. Nothing is faked.

const TOKEN = 'paging-token-0042';
const servers: ScriptedServer[] = [];
const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: Script): Promise<ScriptedServer> {
  const server = await startScripted(script);
  servers.push(server);
  return server;
}

function clientOf(server: ScriptedServer, base = '/'): ApiClient {
  const client = new ApiClient({
    label: 'the paged API',
    input: 'test',
    baseUrl: `${server.url}${base}`,
    auth: bearerAuth(() => TOKEN),
  });
  clients.push(client);
  return client;
}

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(page);
  return all;
}

async function failure(promise: Promise<unknown>): Promise<BridgeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isBridgeError(error)) throw new Error(`expected a BridgeError, got ${String(error)}`);
  return error;
}

describe('Link header pages (RFC 8288)', () => {
  it('follows rel="next" as given, relative or absolute, among other links, until a page has none', async () => {
    const server = await serve((req, res) => {
      const after = new URL(req.path, 'http://x').searchParams.get('after');
      if (after === null)
        return json(res, 200, [1, 2], {
          link: `<${req.path}>; rel="self", </api/v1/users?after=a%2Bb&limit=2>; rel="next"`,
        });
      if (after === 'a+b')
        return json(res, 200, [3, 4], { link: `<${server.url}/api/v1/users?after=c>; rel="prev next"` });
      json(res, 200, [5], { link: `<${server.url}/api/v1/users?after=a%2Bb&limit=2>; rel="prev"` });
    });
    const pages = await collect(linkPages(clientOf(server), 'api/v1/users?limit=2'));
    expect(pages.map((p) => p.body)).toEqual([[1, 2], [3, 4], [5]]);
    expect(server.requests.map((r) => r.path)).toEqual([
      '/api/v1/users?limit=2',
      '/api/v1/users?after=a%2Bb&limit=2',
      '/api/v1/users?after=c',
    ]);
    expect(server.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it('refuses a next link on another origin (source_invalid), and never sends it the credential', async () => {
    const elsewhere = await serve((_, res) => json(res, 200, []));
    const server = await serve((_, res) =>
      json(res, 200, [1], { link: `<${elsewhere.url}/steal?after=x>; rel="next"` }),
    );
    const pages: unknown[] = [];
    const error = await failure(
      (async () => {
        for await (const page of linkPages(clientOf(server), 'api/v1/users')) pages.push(page.body);
      })(),
    );
    expect(error.code).toBe('source_invalid');
    expect(error.message).toBe(
      `The paged API gave a URL on another origin (${elsewhere.url}): not followed, the credential stays with ${server.url}`,
    );
    expect(pages).toEqual([[1]]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it('stops with source_invalid on a next link that leads back to a page already read', async () => {
    const server = await serve((_, res) =>
      json(res, 200, [1], { link: '</api/v1/users?after=same>; rel="next"' }),
    );
    const error = await failure(collect(linkPages(clientOf(server), 'api/v1/users')));
    expect(error.message).toBe('The paged API /api/v1/users: the next link repeats one already followed');
    expect(server.requests).toHaveLength(2);
  });

  it('reads a list that is gone as no pages when asked to', async () => {
    const server = await serve((_, res) => json(res, 404, { errorSummary: 'Not found' }));
    expect(
      await collect(linkPages(clientOf(server), 'api/v1/groups/x/users', { absentIsEmpty: true })),
    ).toEqual([]);
    expect((await failure(collect(linkPages(clientOf(server), 'api/v1/groups/x/users')))).status).toBe(404);
  });
});

describe('next links in the body (Microsoft Graph)', () => {
  it('follows @odata.nextLink verbatim and ends at the @odata.deltaLink', async () => {
    const server = await serve((req, res) => {
      const base = `${server.url}/v1.0/users/delta`;
      if (req.path === '/v1.0/users/delta?$select=id')
        return json(res, 200, { value: [{ id: 'a' }], '@odata.nextLink': `${base}?$skiptoken=X%27y%3D%3D` });
      if (req.path === '/v1.0/users/delta?$skiptoken=X%27y%3D%3D')
        return json(res, 200, { value: [{ id: 'b' }], '@odata.deltaLink': `${base}?$deltatoken=Z9` });
      json(res, 500, {});
    });
    const pages = await collect(nextLinkPages(clientOf(server, '/v1.0/'), 'users/delta?$select=id'));
    expect(pages.map((p) => p.items)).toEqual([[{ id: 'a' }], [{ id: 'b' }]]);
    expect(pages.map((p) => p.deltaLink)).toEqual([
      undefined,
      `${server.url}/v1.0/users/delta?$deltatoken=Z9`,
    ]);
  });

  it('refuses a nextLink or a deltaLink on another origin', async () => {
    const server = await serve((_, res) =>
      json(res, 200, { value: [], '@odata.nextLink': 'https://graph.example.net/v1.0/users?$skiptoken=1' }),
    );
    const error = await failure(collect(nextLinkPages(clientOf(server), 'users')));
    expect(error.message).toContain('gave a URL on another origin (https://graph.example.net)');
    server.script = (_, res) =>
      json(res, 200, { value: [], '@odata.deltaLink': 'https://graph.example.net/d' });
    expect((await failure(collect(nextLinkPages(clientOf(server), 'users')))).code).toBe('source_invalid');
  });
});

describe('page tokens (Google)', () => {
  it('sends nextPageToken back as pageToken until an answer has none; an empty page may leave its list out', async () => {
    const server = await serve((req, res) => {
      const token = new URL(req.path, 'http://x').searchParams.get('pageToken');
      if (token === null) return json(res, 200, { users: [1, 2], nextPageToken: 't/1+' });
      if (token === 't/1+') return json(res, 200, { users: [3], nextPageToken: 't2' });
      json(res, 200, { kind: 'admin#directory#users' });
    });
    const pages = await collect(
      pageTokenPages(clientOf(server), 'admin/directory/v1/users?customer=my_customer', {
        itemsField: 'users',
      }),
    );
    expect(pages).toEqual([[1, 2], [3], []]);
    expect(server.requests.map((r) => new URL(r.path, 'http://x').searchParams.get('pageToken'))).toEqual([
      null,
      't/1+',
      't2',
    ]);
    expect(server.requests.every((r) => r.path.includes('customer=my_customer'))).toBe(true);
  });

  it('stops with source_invalid on a page token it was given before', async () => {
    const server = await serve((_, res) => json(res, 200, { users: [1], nextPageToken: 'again' }));
    const error = await failure(collect(pageTokenPages(clientOf(server), 'users', { itemsField: 'users' })));
    expect(error.message).toContain('the page token repeats one already followed');
  });
});

describe('SCIM startIndex pages (RFC 7644 §3.4.2.4)', () => {
  const user = (n: number) => ({ id: `u${n}`, userName: `u${n}@example.com` });

  it('starts each page where the resources received end, though the server caps its pages', async () => {
    const server = await serve((req, res) => {
      const start = Number(new URL(req.path, 'http://x').searchParams.get('startIndex'));
      const ids = [start, start + 1].filter((n) => n <= 5);
      json(res, 200, { totalResults: 5, itemsPerPage: ids.length, Resources: ids.map(user) });
    });
    const pages = await collect(scimPages(clientOf(server, '/scim/v2'), 'Users', { count: 100 }));
    expect(pages.flat().map((u) => (u as { id: string }).id)).toEqual(['u1', 'u2', 'u3', 'u4', 'u5']);
    expect(server.requests.map((r) => r.path)).toEqual(
      [1, 3, 5].map((n) => `/scim/v2/Users?startIndex=${n}&count=100`),
    );
  });

  it('refuses a server that ignores startIndex, and an empty first page that claims resources', async () => {
    const server = await serve((_, res) =>
      json(res, 200, { totalResults: 9, Resources: [user(1), user(2)] }),
    );
    const client = clientOf(server, '/scim/v2/');
    const repeated = await failure(collect(scimPages(client, 'Users', { count: 2 })));
    expect(repeated.message).toBe(
      'The paged API /scim/v2/Users: the page at startIndex 3 repeats resources already read',
    );
    server.script = (_, res) => json(res, 200, { TotalResults: 4 });
    const empty = await failure(collect(scimPages(client, 'Users', { count: 2 })));
    expect(empty.message).toBe('The paged API /scim/v2/Users: totalResults > 0 but no Resources');
  });
});
