import { randomBytes } from 'node:crypto';

/**
 * The JSON Okta's management API answers with (developer.okta.com: Users, Groups, error objects),
 * and the records the emulation keeps.
 */

export interface OktaProfile {
  login: string;
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
}

export type OktaUserStatus =
  | 'STAGED'
  | 'PROVISIONED'
  | 'ACTIVE'
  | 'RECOVERY'
  | 'PASSWORD_EXPIRED'
  | 'LOCKED_OUT'
  | 'SUSPENDED'
  | 'DEPROVISIONED';

export interface OktaUserRecord {
  id: string;
  status: OktaUserStatus | string;
  profile: OktaProfile;
}

export interface OktaGroupRecord {
  id: string;
  type?: 'OKTA_GROUP' | 'APP_GROUP' | 'BUILT_IN';
  name: string;
  description?: string;
}

/** An answer of the emulation: status, JSON body, and the Link relations to send. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  links?: { self?: URL; next?: URL };
}

const STAMP = '2024-03-01T09:00:00.000Z';

export function oktaError(errorCode: string, errorSummary: string) {
  return {
    errorCode,
    errorSummary,
    errorLink: errorCode,
    errorId: `oae${randomBytes(8).toString('hex')}`,
    errorCauses: [],
  };
}

export function notFound(id: string, type: string): Reply {
  return { status: 404, body: oktaError('E0000007', `Not found: Resource not found: ${id} (${type})`) };
}

export function noSuchEndpoint(): Reply {
  return {
    status: 404,
    body: oktaError('E0000022', 'The endpoint does not support the provided HTTP method'),
  };
}

export function userJson(user: OktaUserRecord, base: string) {
  return {
    id: user.id,
    status: user.status,
    created: STAMP,
    activated: user.status === 'STAGED' ? null : STAMP,
    statusChanged: STAMP,
    lastLogin: null,
    lastUpdated: STAMP,
    passwordChanged: STAMP,
    type: { id: 'oty1a2b3c4d5e6f7g8h9' },
    profile: { mobilePhone: null, secondEmail: null, ...user.profile },
    credentials: { provider: { type: 'OKTA', name: 'OKTA' } },
    _links: { self: { href: `${base}/api/v1/users/${user.id}` } },
  };
}

export function groupJson(group: OktaGroupRecord, base: string) {
  return {
    id: group.id,
    created: STAMP,
    lastUpdated: STAMP,
    lastMembershipUpdated: STAMP,
    objectClass: ['okta:user_group'],
    type: group.type ?? 'OKTA_GROUP',
    profile: { name: group.name, description: group.description ?? null },
    _links: {
      logo: [
        {
          name: 'medium',
          href: 'https://example.okta.com/img/logos/groups/okta-medium.png',
          type: 'image/png',
        },
      ],
      users: { href: `${base}/api/v1/groups/${group.id}/users` },
      apps: { href: `${base}/api/v1/groups/${group.id}/apps` },
    },
  };
}
