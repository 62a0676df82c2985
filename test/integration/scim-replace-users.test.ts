import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget, ScimUser } from 'scim-reference-target';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { CASES, fullUser, type Body } from './replace-user-cases.js';

// Real: one `all` bridge (startEngine: HTTP, Redis, BullMQ workers) against the reference target
// over HTTP, driven on its own listener as an IdP drives it. Issue 33, for users: every attribute a
// PUT or a PATCH `replace` names with null or [] (unassigned, RFC 7643 §2.5) is emptied — in the
// answer, in GET and, for the managed attributes, on the platform — or the write is refused with a
// 400 that changes nothing. An attribute a PUT leaves out is replaced by nothing (RFC 7644 §3.5.1),
// except `externalId` and `active`, which stay.

const TOKEN = 'replace-users-token-0123456789';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The answer without what a write stamps (meta) or derives (schemas). */
function stable(body: Body): Body {
  const { meta: _meta, schemas: _schemas, ...rest } = body;
  return rest;
}

function without(body: Body, paths: readonly string[][]): Body {
  const copy = structuredClone(body);
  for (const path of paths) {
    const parent = path
      .slice(0, -1)
      .reduce<Body | undefined>((at, key) => at?.[key] as Body | undefined, copy);
    if (parent) delete parent[path[path.length - 1] ?? ''];
  }
  // An object left without values is unassigned (RFC 7643 §2.5) and not answered.
  for (const [key, value] of Object.entries(copy)) {
    if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) {
      delete copy[key];
    }
  }
  return copy;
}

/** What the bridge manages on the platform. */
function managed(user: ScimUser | undefined) {
  return {
    externalId: user?.externalId,
    name: { givenName: user?.name?.givenName, familyName: user?.name?.familyName },
    emails: (user?.emails ?? []).map((email) => email.value),
    active: user?.active,
  };
}

interface Outcome {
  id: string;
  userName: string;
  before: Body;
  status: number;
  answer: Body;
  after: Body;
}

describe.each(['PATCH', 'PUT'] as const)(
  'a user replaced or patched with null and [] (the platform takes %s)',
  (platform) => {
    let target: ReferenceTarget;
    let engine: EngineFixture;
    const outcomes = new Map<string, Outcome>();
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const http = () => request(engine.bridge.http.url);
    const read = async (id: string) =>
      (await http().get(`/scim/v2/Users/${id}`).set(auth).expect(200)).body as Body;

    beforeAll(async () => {
      target = await startTarget();
      // Read once per bridge process (RFC 7643 §5 ServiceProviderConfig): set before it starts.
      target.faults.setPatchSupported(platform === 'PATCH');
      engine = await startEngine(target, { INBOUND_SCIM_TOKEN: TOKEN });
      const created = await Promise.all(
        CASES.map(async (_, index) => {
          const userName = `empties-${index}@example.com`;
          const res = await http().post('/scim/v2/Users').set(auth).send(fullUser(userName));
          expect(res.status).toBe(201);
          return { id: res.body.id as string, userName };
        }),
      );
      await engine.drain();
      for (const { userName } of created) {
        expect(managed(target.findUserByUserName(userName)), userName).toEqual({
          externalId: `ext-${userName}`,
          name: { givenName: 'Ada', familyName: 'Lovelace' },
          emails: [userName],
          active: true,
        });
      }
      for (const [index, { write, name }] of CASES.entries()) {
        const { id, userName } = created[index] ?? { id: '', userName: '' };
        const before = await read(id);
        const res =
          'put' in write
            ? await http()
                .put(`/scim/v2/Users/${id}`)
                .set(auth)
                .send(write.put(fullUser(userName)))
            : await http()
                .patch(`/scim/v2/Users/${id}`)
                .set(auth)
                .send({ schemas: [PATCH_OP], Operations: write.patch });
        outcomes.set(name, {
          id,
          userName,
          before,
          status: res.status,
          answer: res.body as Body,
          after: await read(id),
        });
      }
      await engine.drain();
    });
    afterAll(async () => {
      await engine.close();
      await target.close();
    });

    it.each(CASES.map((c) => [c.name, c] as const))('%s', (name, c) => {
      const outcome = outcomes.get(name);
      if (!outcome) throw new Error(`no outcome for ${name}`);
      const { id, userName, before, status, answer, after } = outcome;
      const expected = without(stable(before), c.gone ?? []);
      if (c.refused) {
        expect({ status, scimType: answer.scimType }).toEqual({ status: 400, scimType: 'invalidValue' });
        expect(answer.detail).toContain(c.refused);
      } else {
        expect(status).toBe(200);
        expect(stable(answer)).toEqual(expected);
      }
      expect(stable(after)).toEqual(c.refused ? stable(before) : expected);
      const full = managed(target.findUserByUserName(userName));
      const { externalId, name: platformName, emails } = c.platform ?? {};
      expect(full).toEqual({
        externalId: externalId ? id : `ext-${userName}`,
        name: platformName
          ? { givenName: platformName.givenName, familyName: platformName.familyName }
          : { givenName: 'Ada', familyName: 'Lovelace' },
        emails: emails ?? [userName],
        // Unassigned leaves the platform's value (README, "Identity providers").
        active: true,
      });
    });
  },
);
