import { describe, expect, it } from 'vitest';
import { changesForEvents } from '../../src/sources/events/generic-event.changes.js';
import { parseEventBatch } from '../../src/sources/events/generic-event.schema.js';

// Pure: validation of generic events and the desired-state changes they make.
describe('generic events', () => {
  const user = (id: string, extra: Record<string, unknown> = {}) => ({
    id: `e-${id}`,
    type: 'user.upserted',
    data: { id, userName: `${id}@example.com`, ...extra },
  });

  it('accepts one event or a batch, defaulting active to true', () => {
    const single = parseEventBatch(user('u-1'));
    expect(single).toEqual({
      ok: true,
      events: [
        {
          id: 'e-u-1',
          type: 'user.upserted',
          data: { id: 'u-1', userName: 'u-1@example.com', active: true },
        },
      ],
    });
    const batch = parseEventBatch({
      events: [user('u-1'), { id: 'e-2', type: 'user.deleted', data: { id: 'u-2' } }],
    });
    expect(batch.ok && batch.events.map((e) => e.type)).toEqual(['user.upserted', 'user.deleted']);
  });

  it('names every bad event by index, id, path and reason', () => {
    const events: unknown[] = Array.from({ length: 100 }, (_, i) => user(`u-${i}`));
    events[3] = user('u-3', { userName: '' });
    events[42] = { id: 'e-42', type: 'user.renamed', data: {} };
    events[77] = { id: 'e-77', type: 'group.members.added', data: { id: 'g-1', members: [] } };
    const parsed = parseEventBatch({ events: [...events, { type: 'user.deleted', data: { id: 'x' } }] });
    expect(parsed.ok).toBe(false);
    const problems = parsed.ok ? [] : parsed.problems;
    expect(problems).toHaveLength(4);
    expect(problems[0]).toBe('events[3] (id "e-u-3") data.userName: must not be empty or blank');
    expect(problems[1]).toMatch(
      /^events\[42\] \(id "e-42"\) type: unknown event type \(expected user\.upserted, /,
    );
    expect(problems[2]).toBe('events[77] (id "e-77") data.members: must not be empty');
    expect(problems[3]).toMatch(/^events\[100\] id: /);
  });

  it('refuses more than 1,000 events and an events member that is not an array', () => {
    const many = Array.from({ length: 1001 }, (_, i) => user(`u-${i}`));
    expect(parseEventBatch({ events: many })).toEqual({
      ok: false,
      problems: ['events: at most 1000 events per request'],
    });
    expect(parseEventBatch({ events: {} })).toEqual({
      ok: false,
      problems: ['events: must be an array of events'],
    });
    expect(parseEventBatch('hello')).toMatchObject({
      ok: false,
      problems: [expect.stringMatching(/^event \(event\): /)],
    });
  });

  it('maps each type to one change tied to its event, forced, with a signal', () => {
    const parsed = parseEventBatch({
      events: [
        user('u-1', {
          name: { givenName: 'Ada' },
          emails: [{ value: 'ada@example.com', primary: true }],
          active: false,
        }),
        { id: 'e-2', type: 'user.deleted', data: { id: 'u-2' } },
        { id: 'e-3', type: 'group.upserted', data: { id: 'g-1', displayName: 'Eng' } },
        { id: 'e-4', type: 'group.upserted', data: { id: 'g-2', displayName: 'Ops', members: ['u-1'] } },
        { id: 'e-5', type: 'group.deleted', data: { id: 'g-3' } },
        { id: 'e-6', type: 'group.members.added', data: { id: 'g-1', members: ['u-1', 'u-9'] } },
        { id: 'e-7', type: 'group.members.removed', data: { id: 'g-1', members: ['u-9'] } },
      ],
    });
    if (!parsed.ok) throw new Error(parsed.problems.join('\n'));
    const { changes, ids, repeated } = changesForEvents(parsed.events);
    expect(ids).toEqual(['e-u-1', 'e-2', 'e-3', 'e-4', 'e-5', 'e-6', 'e-7']);
    expect(repeated).toBe(0);
    expect(changes[0]).toEqual({
      op: 'upsertUser',
      user: {
        id: 'u-1',
        userName: 'u-1@example.com',
        name: { givenName: 'Ada' },
        emails: [{ value: 'ada@example.com', primary: true }],
        active: false,
      },
      eventIndex: 0,
      mode: 'force',
      signal: { source: 'events', detail: 'user.upserted e-u-1' },
    });
    expect(changes.map((c) => c.op)).toEqual([
      'upsertUser',
      'deleteUser',
      'upsertGroup',
      'upsertGroup',
      'deleteGroup',
      'addMembers',
      'removeMembers',
    ]);
    expect(changes[2]).toMatchObject({ group: { id: 'g-1', displayName: 'Eng' } });
    expect(changes[2] && 'group' in changes[2] && 'members' in changes[2].group).toBe(false);
    expect(changes[3]).toMatchObject({ group: { members: ['u-1'] } });
    expect(changes.map((c) => c.eventIndex)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('treats an id repeated within a batch as a duplicate', () => {
    const parsed = parseEventBatch({ events: [user('u-1'), user('u-2'), user('u-1')] });
    if (!parsed.ok) throw new Error('invalid');
    const { changes, ids, repeated } = changesForEvents(parsed.events);
    expect(ids).toEqual(['e-u-1', 'e-u-2']);
    expect(changes).toHaveLength(2);
    expect(repeated).toBe(1);
  });
});
