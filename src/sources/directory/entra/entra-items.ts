import { attachFacts, itemFacts, type GroupRef } from '../../../domain/policy-context.js';

/**
 * Graph's users and groups as snapshot items (SPEC §5.5): `id` → `id` (the platform's externalId),
 * `userPrincipalName` → `userName`, `givenName`/`surname` → `name`, `mail` → the primary e-mail,
 * `accountEnabled` → `active`; a group's `displayName` and its members (flattened by the caller).
 * Every selected Graph attribute is attached as a fact for the scope and mapping expressions
 * (`userType == "Guest"`, `department`, `employeeId`…, docs/scope-and-mapping.md).
 *
 * The selection is explicit: without `$select`, Graph returns 11 user properties and no
 * `accountEnabled` (user-list.md); in delta, a change to an unselected property is not reported.
 */

export const USER_SELECT: readonly string[] = [
  'id',
  'userPrincipalName',
  'accountEnabled',
  'displayName',
  'givenName',
  'surname',
  'mail',
  'mailNickname',
  'otherMails',
  'userType',
  'employeeId',
  'employeeType',
  'department',
  'jobTitle',
  'companyName',
  'officeLocation',
  'country',
  'onPremisesImmutableId',
  'onPremisesSamAccountName',
  'onPremisesSyncEnabled',
  'externalUserState',
  'createdDateTime',
];

export const GROUP_SELECT: readonly string[] = [
  'id',
  'displayName',
  'description',
  'mail',
  'mailNickname',
  'mailEnabled',
  'securityEnabled',
  'groupTypes',
  'onPremisesSamAccountName',
  'onPremisesSyncEnabled',
];

/** The users' selection with the configured extra properties (userAttributes). */
export function userSelect(extra: readonly string[]): string[] {
  const lower = new Set(USER_SELECT.map((name) => name.toLowerCase()));
  return [...USER_SELECT, ...extra.filter((name) => !lower.has(name.toLowerCase()))];
}

export type GraphObject = Record<string, unknown>;

export type MemberKind = 'user' | 'group' | 'other';

/** A member's kind by its `@odata.type` (`#microsoft.graph.user`); devices, contacts, apps: other. */
export function memberKind(member: GraphObject): MemberKind {
  const type = typeof member['@odata.type'] === 'string' ? member['@odata.type'] : '';
  if (type === '#microsoft.graph.user') return 'user';
  if (type === '#microsoft.graph.group') return 'group';
  return 'other';
}

/** The type a member's `@odata.type` names, for counts and messages (`device`, `orgContact`). */
export function memberTypeName(member: GraphObject): string {
  const type = typeof member['@odata.type'] === 'string' ? member['@odata.type'] : '';
  return type.replace(/^#microsoft\.graph\./, '') || 'unknown';
}

/** A Graph user as a snapshot item, its Graph attributes (and groups, when known) as facts. */
export function userItem(raw: GraphObject, groups: readonly GroupRef[] = []): Record<string, unknown> {
  const item: Record<string, unknown> = { id: raw.id, userName: raw.userPrincipalName };
  const name: Record<string, string> = {};
  if (typeof raw.givenName === 'string' && raw.givenName !== '') name.givenName = raw.givenName;
  if (typeof raw.surname === 'string' && raw.surname !== '') name.familyName = raw.surname;
  if (Object.keys(name).length > 0) item.name = name;
  if (typeof raw.mail === 'string' && raw.mail !== '') item.emails = [{ value: raw.mail, primary: true }];
  item.active = raw.accountEnabled !== false;
  return attachFacts(item, itemFacts(raw, groups));
}

/** A Graph group as a snapshot item with its (flattened) members. */
export function groupItem(raw: GraphObject, members?: readonly string[]): Record<string, unknown> {
  const item: Record<string, unknown> = { id: raw.id, displayName: raw.displayName };
  if (members !== undefined) item.members = [...members];
  return attachFacts(item, itemFacts(raw));
}

/** How problems and logs name an object: its userPrincipalName or displayName, else its id. */
export function labelOf(raw: GraphObject): string {
  for (const key of ['userPrincipalName', 'displayName', 'id']) {
    const value = raw[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return '(no id)';
}

export function idOf(raw: unknown): string | undefined {
  const id = typeof raw === 'object' && raw !== null ? (raw as GraphObject).id : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** `users?$select=…&$top=…` and the like: Graph's query options, `$` and `,` left as they are. */
export function query(path: string, params: Record<string, string>): string {
  const parts = Object.entries(params).map(
    ([name, value]) => `${name}=${encodeURIComponent(value).replace(/%2C/gi, ',')}`,
  );
  return `${path}?${parts.join('&')}`;
}
