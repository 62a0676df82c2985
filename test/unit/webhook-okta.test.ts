import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { OktaEventJobData } from '../../src/queue/okta-events-job.js';
import { DEFAULT_POLICY } from '../../src/domain/identity-policy.js';
import { changesForOktaEvent, splitDisplayName } from '../../src/sources/okta/okta-event.changes.js';
import { mapSourceChanges } from '../../src/sync/source-changes.js';
import { deliveryEvents, readOktaEvent } from '../../src/sources/okta/okta-event.js';

// Pure: reading Okta Event Hook deliveries (fixtures in Okta's documented shape) and what they change.
const FIXTURES = new URL('../fixtures/okta-hooks/', import.meta.url);
const fixture = (name: string): unknown => JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8'));
const events = (name: string) => deliveryEvents(fixture(name)) ?? [];
const job = (name: string, index = 0): OktaEventJobData => {
  const read = readOktaEvent(events(name)[index]);
  if (!read.ok) throw new Error(read.reason);
  return read.job;
};

describe('Okta Event Hook deliveries', () => {
  it('reads every handled event type, picking the User and the UserGroup targets by type', () => {
    const handled = readdirSync(FIXTURES).filter(
      (f) =>
        f.endsWith('.json') &&
        !['null-target.json', 'unsubscribed-type.json', 'failed-outcome.json'].includes(f),
    );
    const types = new Set<string>();
    for (const name of handled) {
      for (const raw of events(name)) {
        const read = readOktaEvent(raw);
        expect(read, name).toMatchObject({ ok: true });
        if (read.ok) types.add(read.job.eventType);
      }
    }
    expect([...types].sort()).toEqual([
      'group.lifecycle.create',
      'group.lifecycle.delete',
      'group.profile.updated',
      'group.user_membership.add',
      'group.user_membership.remove',
      'user.account.update_profile',
      'user.lifecycle.activate',
      'user.lifecycle.create',
      'user.lifecycle.deactivate',
      'user.lifecycle.delete.initiated',
      'user.lifecycle.suspend',
      'user.lifecycle.unsuspend',
    ]);
    expect(job('group-user-membership-add.json')).toEqual({
      uuid: '5a1e0000-0000-11ee-8000-000000000004',
      eventType: 'group.user_membership.add',
      published: Date.parse('2024-03-01T10:00:04.148Z'),
      user: {
        id: '00uadalovel0x7a1b2c3',
        alternateId: 'ada.lovelace@example.com',
        displayName: 'Ada Lovelace',
      },
      group: { id: '00gengineer0x7a1b2c3', alternateId: 'unknown', displayName: 'Engineering' },
    });
  });

  it('skips a null target, an unsubscribed type, an unsuccessful outcome in any case, and junk', () => {
    expect(readOktaEvent(events('null-target.json')[0])).toMatchObject({
      ok: false,
      reason: 'no User target',
    });
    expect(readOktaEvent(events('unsubscribed-type.json')[0])).toMatchObject({
      ok: false,
      eventType: 'user.session.start',
      reason: 'event type not handled',
    });
    expect(readOktaEvent(events('failed-outcome.json')[0])).toMatchObject({
      ok: false,
      reason: /outcome FAILURE/,
    });
    expect(readOktaEvent(42)).toMatchObject({ ok: false });
    expect(deliveryEvents({ data: {} })).toBeUndefined();
    const lower = {
      ...(events('user-lifecycle-activate.json')[0] as object),
      outcome: { result: 'success' },
    };
    expect(readOktaEvent(lower)).toMatchObject({ ok: true });
  });

  it('without enrichment, builds users from alternateId and displayName, creating them inactive', () => {
    const created = changesForOktaEvent(job('user-lifecycle-create.json'), {});
    expect(created).toEqual({
      changes: [
        {
          op: 'upsert',
          kind: 'users',
          item: {
            id: '00uadalovel0x7a1b2c3',
            userName: 'ada.lovelace@example.com',
            name: { givenName: 'Ada', familyName: 'Lovelace' },
            emails: [{ value: 'ada.lovelace@example.com', primary: true }],
            active: false,
          },
          label: 'ada.lovelace@example.com',
          event: {
            id: '5a1e0000-0000-11ee-8000-000000000002',
            eventTime: Date.parse('2024-03-01T10:00:02.074Z'),
          },
          detail: 'user.lifecycle.create 5a1e0000-0000-11ee-8000-000000000002',
        },
      ],
    });
    const activated = changesForOktaEvent(job('user-lifecycle-activate.json'), {});
    expect(activated).toMatchObject({ changes: [{ item: { active: true } }] });
    expect(changesForOktaEvent(job('user-lifecycle-suspend.json'), {})).toMatchObject({
      changes: [{ item: { active: false, userName: 'ada.byron@example.com' } }],
    });
  });

  it('without enrichment, a profile update keeps the current state and creates nobody', () => {
    const update = job('user-account-update-profile.json');
    expect(changesForOktaEvent(update, {})).toEqual({ skip: expect.stringMatching(/profile update/) });
    const current = {
      id: update.user?.id ?? '',
      userName: 'old@example.com',
      active: false,
      externalId: 'x-1',
    };
    expect(changesForOktaEvent(update, { current })).toMatchObject({
      changes: [
        {
          item: {
            userName: 'ada.byron@example.com',
            name: { givenName: 'Ada', familyName: 'Byron' },
            active: false,
            externalId: 'x-1',
          },
        },
      ],
    });
  });

  it('with enrichment, takes the user from Okta (login, email, names, status)', () => {
    const plan = changesForOktaEvent(job('user-lifecycle-create.json'), {
      oktaUser: {
        id: '00uadalovel0x7a1b2c3',
        status: 'ACTIVE',
        profile: {
          login: 'ada@corp.example',
          email: 'ada.l@corp.example',
          firstName: 'Augusta Ada',
          lastName: 'King',
        },
      },
    });
    expect(plan).toMatchObject({
      changes: [
        {
          item: {
            userName: 'ada@corp.example',
            name: { givenName: 'Augusta Ada', familyName: 'King' },
            emails: [{ value: 'ada.l@corp.example', primary: true }],
            active: true,
          },
        },
      ],
    });
    for (const status of ['STAGED', 'SUSPENDED', 'DEPROVISIONED']) {
      const p = changesForOktaEvent(job('user-lifecycle-activate.json'), {
        oktaUser: { id: 'x', status, profile: { login: 'a@b.c' } },
      });
      expect(p).toMatchObject({ changes: [{ item: { active: false } }] });
    }
    expect(changesForOktaEvent(job('user-lifecycle-activate.json'), { oktaUser: null })).toHaveProperty(
      'skip',
    );
  });

  it('maps deletes, group events and memberships; memberships follow Okta when it was asked', () => {
    expect(changesForOktaEvent(job('user-lifecycle-delete.json'), {})).toMatchObject({
      changes: [
        { op: 'remove', kind: 'users', id: '00utomkilb0x7a1b2c3d', event: { eventTime: expect.any(Number) } },
      ],
    });
    expect(changesForOktaEvent(job('group-lifecycle-delete.json'), {})).toMatchObject({
      changes: [{ op: 'remove', kind: 'groups', id: '00gsalesteam0x7a1b2c' }],
    });
    // A group event says nothing of its members: the group keeps those it has.
    expect(changesForOktaEvent(job('group-profile-updated.json'), {})).toEqual({
      changes: [
        expect.objectContaining({
          op: 'upsert',
          kind: 'groups',
          item: { id: '00gengineer0x7a1b2c3', displayName: 'Engineering Team' },
        }),
      ],
    });
    expect(
      changesForOktaEvent(job('group-profile-updated.json'), {
        oktaGroup: { id: '00gengineer0x7a1b2c3', profile: { name: 'Eng (from Okta)' } },
      }),
    ).toMatchObject({ changes: [{ item: { displayName: 'Eng (from Okta)' } }] });
    const add = changesForOktaEvent(job('group-user-membership-add.json'), {});
    expect(add).toMatchObject({
      changes: [
        { op: 'members', groupId: '00gengineer0x7a1b2c3', add: ['00uadalovel0x7a1b2c3'], remove: [] },
      ],
    });
    // As the desired state takes it: a membership change carries its event, never a time.
    const mapped = mapSourceChanges(DEFAULT_POLICY, 'changes' in add ? add.changes : [], {
      detail: 'hook',
      signal: 'okta',
    });
    expect(mapped.changes).toMatchObject([{ op: 'addMembers', eventIndex: 0 }]);
    expect(mapped.changes[0]).not.toHaveProperty('eventTime');
    expect(changesForOktaEvent(job('group-user-membership-add.json'), { member: false })).toMatchObject({
      changes: [{ op: 'members', add: [], remove: ['00uadalovel0x7a1b2c3'] }],
    });
    expect(changesForOktaEvent(job('group-user-membership-remove.json'), { member: true })).toMatchObject({
      changes: [{ op: 'members', add: ['00ugracehop0x7a1b2c3'], remove: [] }],
    });
  });

  it('splits a display name into a given name and the rest', () => {
    expect(splitDisplayName('Luca da Silva')).toEqual({ givenName: 'Luca', familyName: 'da Silva' });
    expect(splitDisplayName('  Cher ')).toEqual({ givenName: 'Cher' });
    expect(splitDisplayName('   ')).toBeUndefined();
    expect(splitDisplayName(undefined)).toBeUndefined();
  });
});
