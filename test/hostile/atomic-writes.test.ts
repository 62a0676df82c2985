import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalUserJson } from '../../src/domain/canonical.js';
import { isBridgeError } from '../../src/domain/errors.js';
import { FileDirectorySource } from '../../src/sources/directory/file/file.source.js';
import { LuaScript } from '../../src/store/lua-script.js';
import { applyBatchKeys } from '../../src/store/lua/desired-state.keys.js';
import { APPLY_BATCH } from '../../src/store/lua/desired-state.lua.js';
import {
  fresh,
  LONE_SURROGATE_NAME,
  startHostileBridge,
  userEvent,
  USER_SCHEMA,
  type HostileBridge,
} from './bridge-fixture.js';

// Real: the whole bridge (Redis, its Lua batch, BullMQ, HTTP) against the reference target. Every
// case sends a batch whose later part the store cannot take, and checks that its earlier part was
// not written either: no document, no dirty mark, no event id remembered.
describe('writes are all or nothing', () => {
  let bridge: HostileBridge;
  const store = () => bridge.engine.bridge.store;
  const stored = (id: string) => store().desired.getUser(id);
  const marked = async (id: string) =>
    (await store().redis.zscore(store().keys.dirty(), `user:${id}`)) !== null;
  const seen = async (eventId: string) =>
    (await store().redis.exists(store().keys.seenEvent('events', eventId))) === 1;

  beforeAll(async () => {
    bridge = await startHostileBridge();
  });
  afterAll(async () => {
    await bridge.close();
  });

  it('refuses a store batch with a lone surrogate before writing its first change', async () => {
    const [good, bad] = [fresh('u'), fresh('u')];
    const attempt = store().desired.apply([
      { op: 'upsertUser', user: { id: good, userName: `${good}@example.com`, active: true }, mode: 'force' },
      { op: 'upsertUser', user: { id: bad, userName: LONE_SURROGATE_NAME, active: true }, mode: 'force' },
    ]);
    await expect(attempt).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/Change 1 .*user\.userName: not well-formed Unicode/),
    });
    expect(await stored(good)).toBeUndefined();
    expect(await marked(good)).toBe(false);
  });

  it('has the Lua batch decode every op before its first write, whatever it is handed', async () => {
    const [good, bad] = [fresh('u'), fresh('u')];
    const keys = store().keys;
    const doc = (id: string, userName: string) => ({
      op: 'upsertUser',
      id,
      doc: canonicalUserJson({ id, userName, active: true }),
      mode: 'force',
      entry: '',
    });
    // What the TypeScript side would never send: index entries holding a lone surrogate's escape.
    const poisoned = { ...doc(bad, 'pb-x'), ix: '{"n":"pb\\ud800","e":[]}' };
    const batch = { owner: 'events', wake: true, ops: [doc(good, `${good}@example.com`), poisoned] };
    const { keys: scriptKeys, families } = applyBatchKeys(keys, {
      forSync: false,
      owner: 'events',
      targets: [
        { kind: 'user', id: good },
        { kind: 'user', id: bad },
      ],
      eventKeys: [],
    });
    const reply = await new LuaScript(APPLY_BATCH).run(store().redis, scriptKeys, [
      Date.now(),
      JSON.stringify(batch),
      ...families,
    ]);
    expect(JSON.parse(reply as string)).toEqual({
      invalid: { index: 1, reason: 'the document or its index entries are not decodable' },
    });
    expect(await stored(good)).toBeUndefined();
    expect(await marked(good)).toBe(false);
    // An event time that is no number failed the script in its third step, after the first op.
    const badTime = {
      wake: true,
      ops: [doc(good, `${good}@example.com`), { ...doc(bad, 'x'), evt: 'soon' }],
    };
    const second = await new LuaScript(APPLY_BATCH).run(store().redis, scriptKeys, [
      Date.now(),
      JSON.stringify(badTime),
      ...families,
    ]);
    expect(JSON.parse(second as string)).toEqual({
      invalid: { index: 1, reason: 'the event time is not a number' },
    });
    expect(await stored(good)).toBeUndefined();
  });

  it('answers a signed batch [valid user, that user with a lone surrogate] with 400 and stores neither', async () => {
    const id = fresh('u');
    const [first, second] = [fresh('e'), fresh('e')];
    const res = await bridge.signed({
      events: [userEvent(first, id), userEvent(second, id, { userName: LONE_SURROGATE_NAME })],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual([
      'events[1].data.userName: not well-formed Unicode (a lone UTF-16 surrogate)',
    ]);
    expect(await stored(id)).toBeUndefined();
    expect(await seen(first)).toBe(false);
  });

  it('refuses a pushed snapshot holding such a user with 400, naming it, and starts no sync', async () => {
    const ok = { id: fresh('u'), userName: 'fine@example.com' };
    const res = await bridge.admin('post', '/admin/sync').send({
      snapshot: { users: [ok, { id: fresh('u'), userName: LONE_SURROGATE_NAME }], groups: [] },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual([
      'snapshot.users[1].userName: not well-formed Unicode (a lone UTF-16 surrogate)',
    ]);
    expect(await stored(ok.id)).toBeUndefined();
    expect(await store().syncs.records.activeSyncId()).toBeUndefined();
  });

  it('refuses a snapshot whose ids the store cannot key, before a sync writes any of it', async () => {
    const res = await bridge.admin('post', '/admin/sync').send({
      snapshot: {
        users: [
          { id: 'u-ok', userName: 'ok@example.com' },
          { id: 'u\nbad', userName: 'b@example.com' },
        ],
        groups: [],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual(['users[1].id: not a usable id: holds a control character']);
    expect(await stored('u-ok')).toBeUndefined();
  });

  it('makes a directory file with such a user a clear source error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hostile-'));
    try {
      const path = join(dir, 'directory.json');
      const users = [
        { id: 'u-1', userName: 'ada@example.com' },
        { id: 'u-2', userName: LONE_SURROGATE_NAME },
      ];
      await writeFile(path, JSON.stringify({ users, groups: [] }));
      const error = await new FileDirectorySource(path).read().catch((e: unknown) => e);
      expect(isBridgeError(error, 'source_invalid')).toBe(true);
      expect(isBridgeError(error) && error.problems).toEqual([
        'users[1].userName: not well-formed Unicode (a lone UTF-16 surrogate)',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses such a SCIM body and such an Okta delivery with 400, writing and enqueuing nothing', async () => {
    const scim = await bridge
      .scim('post', '/Users')
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ schemas: [USER_SCHEMA], userName: LONE_SURROGATE_NAME }));
    expect(scim.status).toBe(400);
    expect(scim.body).toMatchObject({
      status: '400',
      detail: expect.stringMatching(/^The body is invalid: userName: not well-formed/),
    });
    const okta = await bridge.okta({
      data: {
        events: [
          {
            uuid: fresh('o'),
            published: new Date().toISOString(),
            eventType: 'user.lifecycle.create',
            target: [{ id: '00u1', type: 'User', alternateId: LONE_SURROGATE_NAME }],
          },
        ],
      },
    });
    expect(okta.status).toBe(400);
    expect(okta.body.error.problems).toEqual([
      'data.events[0].target[0].alternateId: not well-formed Unicode (a lone UTF-16 surrogate)',
    ]);
    expect(await store().oktaEvents.queue.getJobCounts('wait', 'active', 'completed')).toEqual({
      wait: 0,
      active: 0,
      completed: 0,
    });
  });
});
