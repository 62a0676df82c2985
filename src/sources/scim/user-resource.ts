import type { DesiredUser, Email, PersonName } from '../../domain/identity.js';
import type { StoredUser } from '../../store/desired-state.queries.js';
import { meta } from './resource-rules.js';
import { invalid } from './scim-errors.js';
import { isObject, type JsonObject } from './scim-json.js';
import { ENTERPRISE_USER_SCHEMA, USER_SCHEMA } from './scim-schema.js';

/**
 * A SCIM User (RFC 7643 §4.1, §4.3) and the bridge's two halves of it: the managed part
 * (`DesiredUser`: userName, name.givenName/familyName, emails, active, externalId — what reaches
 * the target) and the extra part (every other attribute, kept for the SCIM answers only). The
 * e-mails' `display` (readWrite, RFC 7643 §4.1.2) is not managed on the platform: the extra part
 * keeps it as `emails: [{value, type?, display}]`, and answers put it back on the e-mail it was
 * given with.
 */

/** Attributes of the managed part, which the extra part never holds. */
const MANAGED = new Set([
  'userName',
  'externalId',
  'active',
  'emails',
  'id',
  'meta',
  'schemas',
  'groups',
  'password',
]);

/** The full SCIM representation of a stored user (`base`: the absolute URL of /scim/v2). */
export function userToScim(stored: StoredUser, base: string): JsonObject {
  const { user } = stored;
  const { name: extraName, [ENTERPRISE_USER_SCHEMA]: enterprise, ...rest } = stored.extra ?? {};
  const out: JsonObject = {
    schemas: isObject(enterprise) ? [USER_SCHEMA, ENTERPRISE_USER_SCHEMA] : [USER_SCHEMA],
  };
  out.id = user.id;
  if (user.externalId !== undefined) out.externalId = user.externalId;
  out.userName = user.userName;
  const name = { ...(isObject(extraName) ? extraName : {}), ...user.name };
  if (Object.keys(name).length > 0) out.name = name;
  for (const [key, value] of Object.entries(rest)) if (!MANAGED.has(key)) out[key] = value;
  if (user.active !== undefined) out.active = user.active;
  if (user.emails && user.emails.length > 0) out.emails = withDisplays(user.emails, rest.emails);
  if (stored.groups && stored.groups.length > 0) {
    out.groups = stored.groups.map((id) => ({ value: id, $ref: `${base}/Groups/${id}`, type: 'direct' }));
  }
  if (isObject(enterprise)) out[ENTERPRISE_USER_SCHEMA] = enterprise;
  out.meta = meta('User', stored, `${base}/Users/${user.id}`);
  return out;
}

/**
 * What the user gets for `externalId` and `active` when the resource does not hold them: a POST
 * creates an active user (the default), a PUT keeps the current values its body leaves out (RFC
 * 7644 §3.5.1) — not those it names with null — and a PATCH passes none: its resource is the whole
 * patched user, so an attribute it lacks was removed and is unassigned (RFC 7644 §3.5.2.2).
 */
export type KeptUserAttributes = Partial<Pick<DesiredUser, 'externalId' | 'active'>>;

const CREATED: KeptUserAttributes = { active: true };

/**
 * Splits a checked resource (resource-coerce.ts) into the managed user and the extra attributes
 * (null when there are none, which clears them).
 */
export function userFromScim(
  id: string,
  resource: JsonObject,
  kept: KeptUserAttributes = CREATED,
): { user: DesiredUser; extra: JsonObject | null } {
  const userName = resource.userName;
  if (typeof userName !== 'string' || userName.trim() === '') {
    throw invalid('invalidValue', 'userName is required and must not be empty (RFC 7643 §4.1.1)');
  }
  const externalId = typeof resource.externalId === 'string' ? resource.externalId : kept.externalId;
  const name = managedName(resource.name);
  const emails = managedEmails(resource.emails);
  const active = typeof resource.active === 'boolean' ? resource.active : kept.active;
  const user: DesiredUser = {
    id,
    userName,
    ...(externalId === undefined ? {} : { externalId }),
    ...(name ? { name } : {}),
    ...(emails ? { emails } : {}),
    ...(active === undefined ? {} : { active }),
  };
  return { user, extra: extraOf(resource) };
}

function managedName(value: unknown): PersonName | undefined {
  if (!isObject(value)) return undefined;
  const name: PersonName = {};
  if (typeof value.givenName === 'string') name.givenName = value.givenName;
  if (typeof value.familyName === 'string') name.familyName = value.familyName;
  return Object.keys(name).length > 0 ? name : undefined;
}

/** E-mails without an address say nothing the target could hold: they are left out. */
function managedEmails(value: unknown): Email[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const emails: Email[] = [];
  for (const item of value as unknown[]) {
    if (!isObject(item) || typeof item.value !== 'string' || item.value === '') continue;
    const email: Email = { value: item.value };
    if (typeof item.type === 'string') email.type = item.type;
    if (typeof item.primary === 'boolean') email.primary = item.primary;
    emails.push(email);
  }
  return emails.length > 0 ? emails : undefined;
}

/** The `display` of each e-mail that has one, with what finds the e-mail again: value and type. */
function emailDisplays(value: unknown): JsonObject[] {
  if (!Array.isArray(value)) return [];
  return (value as unknown[]).flatMap((item) => {
    if (!isObject(item) || typeof item.value !== 'string' || item.value === '') return [];
    if (typeof item.display !== 'string') return [];
    const type = typeof item.type === 'string' ? { type: item.type } : {};
    return [{ value: item.value, ...type, display: item.display }];
  });
}

/** The managed e-mails with the displays kept for them (same value and type, the value ignoring case). */
function withDisplays(emails: readonly Email[], kept: unknown): JsonObject[] {
  const displays = Array.isArray(kept) ? (kept as unknown[]).filter(isObject) : [];
  return emails.map((email) => {
    const value = email.value.toLowerCase();
    const found = displays.find(
      (entry) =>
        typeof entry.value === 'string' &&
        entry.value.toLowerCase() === value &&
        (entry.type ?? undefined) === email.type,
    );
    return typeof found?.display === 'string' ? { ...email, display: found.display } : { ...email };
  });
}

function extraOf(resource: JsonObject): JsonObject | null {
  const extra: JsonObject = {};
  for (const [key, value] of Object.entries(resource)) {
    if (key === 'emails') {
      const displays = emailDisplays(value);
      if (displays.length > 0) extra.emails = displays;
      continue;
    }
    if (MANAGED.has(key)) continue;
    if (key === 'name' && isObject(value)) {
      const { givenName: _given, familyName: _family, ...others } = value;
      if (Object.keys(others).length > 0) extra.name = others;
      continue;
    }
    extra[key] = value;
  }
  return Object.keys(extra).length > 0 ? extra : null;
}
