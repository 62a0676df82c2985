import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReferenceTarget } from 'scim-reference-target';
import { signatureHeader } from '../../src/sources/events/signature.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';

// Real: one `all` bridge (startEngine: HTTP, Redis, BullMQ workers) against the reference target
// over HTTP, driven on its own listener as an IdP and a signed-event sender drive it. Issue 33: a
// group replaced with `members: []` or `null` kept its members; an omitted `members` is not asserted
// (RFC 7644 §3.5.1) and keeps them, as Okta's App Integration Wizard renames a group by PUT.

const TOKEN = 'replace-groups-token-0123456789';
const SECRET = 'replace-groups-secret-0123456789';
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe.each(['PATCH', 'PUT'] as const)(
  'a group replaced with no members (the platform takes %s)',
  (platform) => {
    let target: ReferenceTarget;
    let engine: EngineFixture;
    const auth = { Authorization: `Bearer ${TOKEN}` };
    const http = () => request(engine.bridge.http.url);
    const put = (id: string, body: Record<string, unknown>) =>
      http()
        .put(`/scim/v2/Groups/${id}`)
        .set(auth)
        .send({ schemas: [GROUP], ...body });
    const patch = (id: string, ...Operations: unknown[]) =>
      http()
        .patch(`/scim/v2/Groups/${id}`)
        .set(auth)
        .send({ schemas: [PATCH_OP], Operations });
    const read = async (id: string) => (await http().get(`/scim/v2/Groups/${id}`).set(auth).expect(200)).body;
    const memberIds = (group: { members?: { value: string }[] }) =>
      (group.members ?? []).map((member) => member.value).sort();

    /** The platform's group of that name: its externalId and its members' userNames. */
    const onPlatform = (displayName: string) => {
      const group = target.findGroupByDisplayName(displayName);
      if (!group) return undefined;
      const members = group.members.map((member) => target.getUser(member.value)?.userName).sort();
      return { externalId: group.externalId, members };
    };

    let u0: string;
    let u1: string;
    const names = new Map<string, string>();

    beforeAll(async () => {
      target = await startTarget();
      // Read once per bridge process (RFC 7643 §5 ServiceProviderConfig): set before it starts.
      target.faults.setPatchSupported(platform === 'PATCH');
      engine = await startEngine(target, { INBOUND_SCIM_TOKEN: TOKEN, WEBHOOK_SECRET: SECRET });
      const createUser = async (userName: string) => {
        const res = await http()
          .post('/scim/v2/Users')
          .set(auth)
          .send({ schemas: [USER], userName });
        expect(res.status).toBe(201);
        names.set(res.body.id as string, userName);
        return res.body.id as string;
      };
      u0 = await createUser('group-member-0@example.com');
      u1 = await createUser('group-member-1@example.com');
    });
    afterAll(async () => {
      await engine.close();
      await target.close();
    });

    const createGroup = async (
      displayName: string,
      members: string[],
      extra: Record<string, unknown> = {},
    ) => {
      const body = { schemas: [GROUP], displayName, members: members.map((value) => ({ value })), ...extra };
      const res = await http().post('/scim/v2/Groups').set(auth).send(body);
      expect(res.status).toBe(201);
      return res.body.id as string;
    };
    const userNames = (...ids: string[]) => ids.map((id) => names.get(id)).sort();

    it('replays the issue: [] and null empty the group everywhere', async () => {
      const prefix = 'PE';
      const id = await createGroup(prefix, [u0, u1]);
      await engine.drain();
      expect(onPlatform(prefix)?.members).toEqual(userNames(u0, u1));

      const steps: { displayName: string; members: unknown; left: string[] }[] = [
        { displayName: prefix, members: [], left: [] },
        { displayName: `${prefix}2`, members: [{ value: u0 }], left: [u0] },
        { displayName: `${prefix}3`, members: [], left: [] },
        { displayName: `${prefix}4`, members: [{ value: u1 }], left: [u1] },
        { displayName: `${prefix}5`, members: null, left: [] },
      ];
      for (const { displayName, members, left } of steps) {
        const answer = await put(id, { displayName, members }).expect(200);
        expect(memberIds(answer.body), `answer to ${displayName}`).toEqual([...left].sort());
        expect(memberIds(await read(id)), `GET after ${displayName}`).toEqual([...left].sort());
        await engine.drain();
        expect(onPlatform(displayName), `platform after ${displayName}`).toEqual({
          externalId: id,
          members: userNames(...left),
        });
      }
    });

    it('keeps the members a PUT does not name (a rename), and clears an externalId given as null', async () => {
      const id = await createGroup('Renamed-0', [u0, u1], { externalId: 'okta-group-1' });
      const renamed = await put(id, { displayName: 'Renamed-1' }).expect(200);
      expect(memberIds(renamed.body)).toEqual([u0, u1].sort());
      expect(renamed.body.externalId).toBe('okta-group-1');
      await engine.drain();
      expect(onPlatform('Renamed-1')).toEqual({ externalId: 'okta-group-1', members: userNames(u0, u1) });

      const cleared = await put(id, { displayName: 'Renamed-2', externalId: null }).expect(200);
      expect(cleared.body).not.toHaveProperty('externalId');
      expect(memberIds(cleared.body)).toEqual([u0, u1].sort());
      expect(await read(id)).not.toHaveProperty('externalId');
      await engine.drain();
      // Without the IdP's externalId, the platform's is the bridge's id (README, "Identity providers").
      expect(onPlatform('Renamed-2')).toEqual({ externalId: id, members: userNames(u0, u1) });
    });

    it('refuses a PUT or PATCH that would leave no displayName, and changes nothing', async () => {
      const id = await createGroup('Named', [u0]);
      for (const res of [
        await put(id, { displayName: null, members: [] }),
        await put(id, { displayName: [], members: [] }),
        await patch(
          id,
          { op: 'replace', path: 'displayName', value: null },
          { op: 'remove', path: 'members' },
        ),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body.scimType).toBe('invalidValue');
      }
      expect(memberIds(await read(id))).toEqual([u0]);
      await engine.drain();
      expect(onPlatform('Named')?.members).toEqual(userNames(u0));
    });

    it.each([
      ['replace members []', { op: 'replace', path: 'members', value: [] }],
      ['replace members null', { op: 'replace', path: 'members', value: null }],
      ['path-less replace {members: []}', { op: 'Replace', value: { members: [] } }],
      ['remove members', { op: 'remove', path: 'members' }],
    ])('PATCH %s empties the group everywhere', async (name, operation) => {
      const displayName = `Patched ${name}`;
      const id = await createGroup(displayName, [u0, u1]);
      await patch(id, operation).expect(204);
      expect(memberIds(await read(id))).toEqual([]);
      await engine.drain();
      expect(onPlatform(displayName)?.members).toEqual([]);
    });

    it('PATCH replace externalId null clears it; the platform gets the bridge id', async () => {
      const id = await createGroup('Patched externalId', [u0], { externalId: 'entra-object-1' });
      await patch(id, { op: 'replace', path: 'externalId', value: null }).expect(204);
      expect(await read(id)).not.toHaveProperty('externalId');
      await engine.drain();
      expect(onPlatform('Patched externalId')).toEqual({ externalId: id, members: userNames(u0) });
    });

    describe('group.upserted events', () => {
      const send = (events: unknown[]) => {
        const raw = JSON.stringify({ events });
        const signature = signatureHeader(SECRET, raw, Math.floor(Date.now() / 1000));
        return http()
          .post('/webhooks/events')
          .set('Content-Type', 'application/json')
          .set('X-Bridge-Signature', signature)
          .send(raw);
      };
      let seq = 0;
      const event = (type: string, data: Record<string, unknown>) => ({ id: `ev-${++seq}`, type, data });
      const group = (members?: unknown) =>
        event('group.upserted', {
          id: 'ev-group',
          displayName: 'Evented',
          ...(members === undefined ? {} : { members }),
        });

      it('sets the members given, keeps them when left out, empties on [], refuses null', async () => {
        const users = ['ev-user-0', 'ev-user-1'].map((id) =>
          event('user.upserted', { id, userName: `${id}@example.com` }),
        );
        await send([...users, group(['ev-user-0', 'ev-user-1'])]).expect(202);
        await send([group()]).expect(202);
        await engine.drain();
        expect(onPlatform('Evented')?.members).toEqual(['ev-user-0@example.com', 'ev-user-1@example.com']);
        const refused = await send([group(null)]).expect(400);
        expect(JSON.stringify(refused.body)).toContain('members');
        await engine.drain();
        expect(onPlatform('Evented')?.members).toHaveLength(2);
        await send([group([])]).expect(202);
        await engine.drain();
        expect(onPlatform('Evented')?.members).toEqual([]);
      });
    });
  },
);
