/**
 * The writes of test/integration/scim-replace-users.test.ts: one per attribute and form (PUT with
 * null, [] or the attribute left out; PATCH replace with null, [] or {}; PATCH remove), each applied
 * to a user holding every kind of attribute, with what it must leave.
 */

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

export type Body = Record<string, unknown>;

/** A user with every kind of attribute: managed, extra, multi-valued, complex and the extension. */
export function fullUser(userName: string): Body {
  return {
    schemas: [USER, ENTERPRISE],
    userName,
    externalId: `ext-${userName}`,
    name: { givenName: 'Ada', familyName: 'Lovelace', middleName: 'Byron' },
    displayName: 'Ada Lovelace',
    title: 'Countess',
    emails: [{ value: userName, type: 'work', primary: true }],
    phoneNumbers: [{ value: '+44 20 7946 0000', type: 'work' }],
    addresses: [{ locality: 'London', type: 'work' }],
    active: true,
    [ENTERPRISE]: { department: 'Analytical Engines', manager: { value: 'boss-id' } },
  };
}

export interface Case {
  name: string;
  /** A PUT body made from the full user, or PATCH operations. */
  write: { put: (full: Body) => Body } | { patch: unknown[] };
  /** Refused with a 400 invalidValue whose detail names this attribute, and nothing changes. */
  refused?: string;
  /** Paths the answer and GET lose (the rest stays as it was). */
  gone?: string[][];
  /** The platform's managed attributes that change; `externalId: true` means the bridge's id. */
  platform?: { externalId?: true; name?: { givenName?: string; familyName?: string }; emails?: [] };
}

const put = (change: Body): Case['write'] => ({ put: (full) => ({ ...full, ...change }) });
const putWithout = (key: string): Case['write'] => ({
  put: (full) => Object.fromEntries(Object.entries(full).filter(([k]) => k !== key)),
});
const patch = (...operations: unknown[]): Case['write'] => ({ patch: operations });
const NO_NAME = { name: {} };
const NO_EMAILS = { emails: [] as [] };
const FAMILY_ONLY = { name: { familyName: 'Lovelace' } };

export const CASES: Case[] = [
  {
    name: 'PUT externalId: null',
    write: put({ externalId: null }),
    gone: [['externalId']],
    platform: { externalId: true },
  },
  { name: 'PUT externalId omitted', write: putWithout('externalId') },
  { name: 'PUT externalId: []', write: put({ externalId: [] }), refused: 'externalId' },
  { name: 'PUT active: null', write: put({ active: null }), gone: [['active']] },
  { name: 'PUT active omitted', write: putWithout('active') },
  { name: 'PUT name: null', write: put({ name: null }), gone: [['name']], platform: NO_NAME },
  { name: 'PUT name: {}', write: put({ name: {} }), gone: [['name']], platform: NO_NAME },
  { name: 'PUT name: []', write: put({ name: [] }), refused: 'name' },
  {
    name: 'PUT name.givenName: null',
    write: put({ name: { givenName: null, familyName: 'Lovelace', middleName: 'Byron' } }),
    gone: [['name', 'givenName']],
    platform: FAMILY_ONLY,
  },
  { name: 'PUT emails: []', write: put({ emails: [] }), gone: [['emails']], platform: NO_EMAILS },
  { name: 'PUT emails: null', write: put({ emails: null }), gone: [['emails']], platform: NO_EMAILS },
  { name: 'PUT emails omitted', write: putWithout('emails'), gone: [['emails']], platform: NO_EMAILS },
  { name: 'PUT phoneNumbers: []', write: put({ phoneNumbers: [] }), gone: [['phoneNumbers']] },
  { name: 'PUT addresses: null', write: put({ addresses: null }), gone: [['addresses']] },
  {
    name: 'PUT title and displayName: null',
    write: put({ title: null, displayName: null }),
    gone: [['title'], ['displayName']],
  },
  {
    name: 'PUT enterprise manager: null',
    write: put({ [ENTERPRISE]: { department: 'Analytical Engines', manager: null } }),
    gone: [[ENTERPRISE, 'manager']],
  },
  {
    name: 'PUT enterprise manager: []',
    write: put({ [ENTERPRISE]: { manager: [] } }),
    refused: `${ENTERPRISE}:manager`,
  },
  { name: 'PUT enterprise extension: null', write: put({ [ENTERPRISE]: null }), gone: [[ENTERPRISE]] },
  { name: 'PUT userName: null', write: put({ userName: null }), refused: 'userName' },
  {
    name: 'PATCH replace emails []',
    write: patch({ op: 'replace', path: 'emails', value: [] }),
    gone: [['emails']],
    platform: NO_EMAILS,
  },
  {
    name: 'PATCH replace emails null',
    write: patch({ op: 'replace', path: 'emails', value: null }),
    gone: [['emails']],
    platform: NO_EMAILS,
  },
  {
    name: 'PATCH replace name null',
    write: patch({ op: 'replace', path: 'name', value: null }),
    gone: [['name']],
    platform: NO_NAME,
  },
  {
    name: 'PATCH replace name {}',
    write: patch({ op: 'replace', path: 'name', value: {} }),
    gone: [['name']],
    platform: NO_NAME,
  },
  {
    name: 'PATCH replace name.givenName null',
    write: patch({ op: 'replace', path: 'name.givenName', value: null }),
    gone: [['name', 'givenName']],
    platform: FAMILY_ONLY,
  },
  {
    name: 'PATCH replace externalId null',
    write: patch({ op: 'replace', path: 'externalId', value: null }),
    gone: [['externalId']],
    platform: { externalId: true },
  },
  {
    name: 'PATCH replace active null',
    write: patch({ op: 'replace', path: 'active', value: null }),
    gone: [['active']],
  },
  {
    name: 'PATCH replace phoneNumbers []',
    write: patch({ op: 'replace', path: 'phoneNumbers', value: [] }),
    gone: [['phoneNumbers']],
  },
  {
    name: 'PATCH replace enterprise manager null',
    write: patch({ op: 'replace', path: `${ENTERPRISE}:manager`, value: null }),
    gone: [[ENTERPRISE, 'manager']],
  },
  {
    name: 'PATCH path-less replace of [] and nulls',
    write: patch({ op: 'Replace', value: { emails: [], title: null, 'name.givenName': null } }),
    gone: [['emails'], ['title'], ['name', 'givenName']],
    platform: { ...NO_EMAILS, ...FAMILY_ONLY },
  },
  {
    name: 'PATCH replace userName null',
    write: patch({ op: 'replace', path: 'userName', value: null }),
    refused: 'userName',
  },
  {
    name: 'PATCH remove emails',
    write: patch({ op: 'remove', path: 'emails' }),
    gone: [['emails']],
    platform: NO_EMAILS,
  },
  {
    name: 'PATCH remove name',
    write: patch({ op: 'remove', path: 'name' }),
    gone: [['name']],
    platform: NO_NAME,
  },
  {
    name: 'PATCH remove externalId',
    write: patch({ op: 'remove', path: 'externalId' }),
    gone: [['externalId']],
    platform: { externalId: true },
  },
  {
    name: 'PATCH remove enterprise manager',
    write: patch({ op: 'remove', path: `${ENTERPRISE}:manager` }),
    gone: [[ENTERPRISE, 'manager']],
  },
];
