import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient, type ApiClientOptions } from '../../../src/api-client/api-client.js';
import type { Pacer } from '../../../src/api-client/pacer.js';
import { RequestBudget } from '../../../src/api-client/request-budget.js';
import { json, startScripted, type ScriptedServer } from '../../support/scripted-http.js';

// The client's pacing hooks against a real node:http server: the per-minute budget, the bound on
// requests in flight, and a vendor's pacer called around each request. Nothing is faked.

let server: ScriptedServer;
const clients: ApiClient[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server.close();
});

function clientOf(options: Partial<ApiClientOptions>): ApiClient {
  const client = new ApiClient({ label: 'the paced API', input: 'test', baseUrl: server.url, ...options });
  clients.push(client);
  return client;
}

describe('pacing', () => {
  it('keeps to a per-minute budget: a second’s worth at once, then one slot after another', async () => {
    server = await startScripted((_, res) => json(res, 200, {}));
    const client = clientOf({ budget: new RequestBudget(600), connections: 16 }); // 10 a second
    const started = Date.now();
    await Promise.all(Array.from({ length: 13 }, () => client.getJson('users')));
    // Ten go at once; the 11th, 12th and 13th wait for slots 100, 200 and 300 ms on.
    const at = server.requests.map((r) => r.at - started).sort((a, b) => a - b);
    expect(at[10]).toBeGreaterThanOrEqual(95);
    expect(at[12]).toBeGreaterThanOrEqual(295);
  });

  it('holds at most `connections` requests in flight', async () => {
    const held: (() => void)[] = [];
    server = await startScripted((_, res) => {
      held.push(() => json(res, 200, {}));
      if (held.length === 2) setImmediate(() => held.splice(0).forEach((answer) => answer()));
    });
    const client = clientOf({ connections: 2 });
    await Promise.all(Array.from({ length: 6 }, () => client.getJson('users')));
    expect(server.requests).toHaveLength(6);
    expect(server.open.most).toBe(2);
  });

  it('calls the pacer before each attempt and after each answer, by route', async () => {
    server = await startScripted((_, res, n) =>
      json(res, n === 0 ? 503 : 200, {}, { 'x-remaining': String(9 - n) }),
    );
    const calls: string[] = [];
    const pacer: Pacer = {
      before: (route) => {
        calls.push(`before ${route}`);
        return Promise.resolve();
      },
      after: (route, answer) =>
        void calls.push(`after ${route} ${answer.status} ${String(answer.headers['x-remaining'])}`),
    };
    await clientOf({ pacer, retry: { baseDelayMs: 1 } }).getJson('api/v1/users/00u1?expand=x');
    expect(calls).toEqual([
      'before /api/v1/users/00u1',
      'after /api/v1/users/00u1 503 9',
      'before /api/v1/users/00u1',
      'after /api/v1/users/00u1 200 8',
    ]);
  });
});
