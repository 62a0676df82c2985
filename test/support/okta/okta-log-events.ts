import { randomBytes, randomUUID } from 'node:crypto';
import type { OktaGroupRecord, OktaUserRecord } from './okta-json.js';

/**
 * LogEvent objects as Okta's System Log records them (and Event Hooks deliver them): the shape of
 * the reference's LogEvent object and of test/fixtures/okta-hooks/. The actor is the admin who
 * made the change through the emulation's control API.
 */

export type LogEvent = Record<string, unknown> & { uuid: string; published: string; eventType: string };

const ADMIN = {
  id: '00uemuadmin0000000001',
  type: 'User',
  alternateId: 'admin@okta-emulation.example',
  displayName: 'Emulation Admin',
  detailEntry: null,
};

/** What each change records: its display message and the request an admin would have sent. */
const KINDS: Record<string, { message: string; legacy: string | null }> = {
  'user.lifecycle.create': { message: 'Create Okta user', legacy: 'core.user.config.user_creation.success' },
  'user.lifecycle.activate': { message: 'Activate Okta user', legacy: 'core.user.config.user_activated' },
  'user.lifecycle.deactivate': {
    message: 'Deactivate Okta user',
    legacy: 'core.user.config.user_deactivated',
  },
  'user.lifecycle.suspend': { message: 'Suspend Okta user', legacy: 'core.user.config.user_suspended' },
  'user.lifecycle.unsuspend': {
    message: 'Unsuspend Okta user',
    legacy: 'core.user.config.user_unsuspended',
  },
  'user.lifecycle.delete.initiated': { message: 'Delete Okta user', legacy: null },
  'user.account.update_profile': {
    message: 'Update user profile for Okta',
    legacy: 'core.user.config.profile_update.success',
  },
  'group.lifecycle.create': { message: 'Create okta user group', legacy: null },
  'group.lifecycle.delete': { message: 'Delete okta user group', legacy: null },
  'group.user_membership.add': {
    message: 'Add user to group membership',
    legacy: 'core.user_group_member.user_add',
  },
  'group.user_membership.remove': {
    message: 'Remove user from group membership',
    legacy: 'core.user_group_member.user_remove',
  },
};

export function userTarget(user: OktaUserRecord) {
  const { firstName, lastName, login } = user.profile;
  const displayName = [firstName, lastName].filter(Boolean).join(' ') || login;
  return { id: user.id, type: 'User', alternateId: login, displayName, detailEntry: null };
}

export function groupTarget(group: OktaGroupRecord) {
  return {
    id: group.id,
    type: 'UserGroup',
    alternateId: 'unknown',
    displayName: group.name,
    detailEntry: null,
  };
}

export function logEvent(eventType: string, target: unknown[], requestUri: string): LogEvent {
  const kind = KINDS[eventType] ?? { message: eventType, legacy: null };
  const requestId = randomBytes(13).toString('base64url');
  return {
    uuid: randomUUID(),
    published: new Date().toISOString(),
    eventType,
    version: '0',
    displayMessage: kind.message,
    severity: 'INFO',
    client: {
      userAgent: { rawUserAgent: 'okta-emulation', os: 'Unknown', browser: 'UNKNOWN' },
      zone: 'null',
      device: 'Unknown',
      id: null,
      ipAddress: '198.51.100.7',
      geographicalContext: null,
    },
    device: null,
    actor: ADMIN,
    outcome: { result: 'SUCCESS', reason: null },
    target,
    transaction: { type: 'WEB', id: requestId, detail: {} },
    debugContext: { debugData: { requestId, requestUri, url: requestUri } },
    legacyEventType: kind.legacy,
    authenticationContext: {
      authenticationProvider: null,
      credentialProvider: null,
      credentialType: null,
      issuer: null,
      interface: null,
      authenticationStep: 0,
      externalSessionId: 'trsEmulation0000000001',
    },
    securityContext: { asNumber: null, asOrg: null, isp: null, domain: null, isProxy: null },
  };
}
