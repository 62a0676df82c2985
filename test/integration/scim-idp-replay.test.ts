import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HttpServer } from '../../src/http/server.js';
import type { ReferenceTarget } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { serveScim } from '../support/scim-fixture.js';

// Real: the whole bridge (startEngine: Redis, BullMQ workers) against the reference target over
// HTTP, with the SCIM router mounted on its store side. Each fixture under test/fixtures/entra and
// test/fixtures/okta-scim transcribes, as data, the requests an IdP's public documentation shows;
// the replay checks every answer, then that the target ends with the IdP's users and groups.

const TOKEN = 'idp-inbound-token-0123456789';
const FIXTURES = new URL('../fixtures/', import.meta.url);

interface Step {
  name: string;
  request: {
    method: string;
    path: string;
    query?: Record<string, string>;
    headers?: Record<string, string>;
    body?: unknown;
  };
  expect: { status: number; headers?: Record<string, string>; body?: unknown };
  /** Variables taken from the answer: name → dotted path in the body. */
  save?: Record<string, string>;
}

interface Fixture {
  description: string;
  steps: Step[];
  target: {
    users?: { userName: string; match: Record<string, unknown> }[];
    /** Deleted through SCIM: inactive on the target, or never created there if deleted quickly. */
    deprovisionedUsers?: string[];
    absentUsers?: string[];
    groups?: { displayName: string; externalId?: string; members: string[] }[];
    absentGroups?: string[];
  };
}

function fixtureFiles(): string[] {
  return ['entra', 'okta-scim'].flatMap((vendor) =>
    readdirSync(new URL(`${vendor}/`, FIXTURES))
      .filter((file) => file.endsWith('.json'))
      .map((file) => `${vendor}/${file}`),
  );
}

/** `${name}` and `${name:upper}` placeholders, everywhere in strings (keys included). */
function substitute<T>(value: T, variables: Map<string, string>): T {
  const text = JSON.stringify(value).replace(
    /\$\{(\w+)(:upper)?\}/g,
    (whole, name: string, upper?: string) => {
      const found = variables.get(name);
      if (found === undefined) return whole;
      const replaced = upper ? found.toUpperCase() : found;
      return JSON.stringify(replaced).slice(1, -1);
    },
  );
  return JSON.parse(text) as T;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where `actual` differs from the expected shape: objects partially, arrays element by element. */
function mismatches(actual: unknown, expected: unknown, path = 'body'): string[] {
  if (typeof expected === 'string' && expected.startsWith('$') && !expected.startsWith('${')) {
    const ok = {
      $absent: actual === undefined,
      $string: typeof actual === 'string' && actual !== '',
      $uuid: typeof actual === 'string' && UUID.test(actual),
      $integer: Number.isInteger(actual),
      $array: Array.isArray(actual),
    }[expected];
    return ok ? [] : [`${path}: expected ${expected}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return [`${path}: expected ${expected.length} values, got ${JSON.stringify(actual)}`];
    }
    return expected.flatMap((item, index) => mismatches(actual[index], item, `${path}[${index}]`));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null)
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    return Object.entries(expected).flatMap(([key, item]) =>
      mismatches((actual as Record<string, unknown>)[key], item, `${path}.${key}`),
    );
  }
  return actual === expected
    ? []
    : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

function headerMismatches(headers: Record<string, unknown>, expected: Record<string, string>): string[] {
  return Object.entries(expected).flatMap(([name, pattern]) => {
    const value = headers[name.toLowerCase()];
    return typeof value === 'string' && new RegExp(pattern).test(value)
      ? []
      : [`header ${name}: expected /${pattern}/, got ${JSON.stringify(value)}`];
  });
}

function dig(body: unknown, path: string): string {
  const value = path
    .split('.')
    .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], body);
  if (typeof value !== 'string') throw new Error(`cannot save ${path}: ${JSON.stringify(value)}`);
  return value;
}

async function replayStep(server: HttpServer, step: Step, variables: Map<string, string>): Promise<void> {
  const { method, path, query, headers = {}, body } = substitute(step.request, variables);
  const agent = request(server.url);
  const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
  let call = agent[verb](`/scim/v2${path}`).set('Authorization', `Bearer ${TOKEN}`);
  if (query) call = call.query(query);
  call = call.set(headers);
  if (body !== undefined) {
    if (!headers['Content-Type']) call = call.set('Content-Type', 'application/scim+json');
    call = call.send(JSON.stringify(body));
  }
  const res = await call;
  const expected = substitute(step.expect, variables);
  const problems = [
    ...(res.status === expected.status
      ? []
      : [`status: expected ${expected.status}, got ${res.status} ${JSON.stringify(res.body)}`]),
    ...headerMismatches(res.headers, expected.headers ?? {}),
    ...(expected.body === undefined ? [] : mismatches(res.body, expected.body)),
  ];
  expect(problems, `${step.name}: ${method} ${path}`).toEqual([]);
  for (const [name, at] of Object.entries(step.save ?? {})) variables.set(name, dig(res.body, at));
}

function checkTarget(
  target: ReferenceTarget,
  fixture: Fixture['target'],
  variables: Map<string, string>,
): void {
  const expected = substitute(fixture, variables);
  for (const user of expected.users ?? []) {
    expect(target.findUserByUserName(user.userName), `target user ${user.userName}`).toMatchObject(
      user.match,
    );
  }
  for (const userName of expected.deprovisionedUsers ?? []) {
    expect(target.findUserByUserName(userName)?.active ?? false, `${userName} not active`).toBe(false);
  }
  for (const userName of expected.absentUsers ?? []) {
    expect(target.findUserByUserName(userName), `no target user ${userName}`).toBeUndefined();
  }
  for (const group of expected.groups ?? []) {
    const held = target.findGroupByDisplayName(group.displayName);
    expect(held, `target group ${group.displayName}`).toBeDefined();
    if (group.externalId !== undefined) expect(held?.externalId).toBe(group.externalId);
    const members = (held?.members ?? []).map((member) => target.getUser(member.value)?.userName).sort();
    expect(members, `members of ${group.displayName}`).toEqual([...group.members].sort());
  }
  for (const displayName of expected.absentGroups ?? []) {
    expect(target.findGroupByDisplayName(displayName), `no target group ${displayName}`).toBeUndefined();
  }
}

describe('replaying what the IdPs send', () => {
  let target: ReferenceTarget;
  let engine: EngineFixture;
  let server: HttpServer;

  beforeEach(async () => {
    target = await startTarget();
    engine = await startEngine(target, { INBOUND_SCIM_TOKEN: TOKEN });
    const { store, config } = engine.bridge;
    server = await serveScim(store, config, TOKEN);
  });
  afterEach(async () => {
    await server.close(100);
    await engine.close();
    await target.close();
  });

  it.each(fixtureFiles())(
    '%s: every answer as the IdP expects, then the target holds what the IdP left',
    async (file) => {
      const fixture = JSON.parse(readFileSync(fileURLToPath(new URL(file, FIXTURES)), 'utf8')) as Fixture;
      const variables = new Map([['run', randomBytes(4).toString('hex')]]);
      for (const step of fixture.steps) await replayStep(server, step, variables);
      await engine.drain();
      checkTarget(target, fixture.target, variables);
    },
  );
});
