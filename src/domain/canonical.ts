import type { DesiredGroup, DesiredUser, Email, PersonName } from './identity.js';

/**
 * The stored form of a desired identity: a compact JSON array in fixed order (about half the size
 * of the object form — it is kept for every identity), without the id (the key holds it), so that
 * two equal identities serialise to the same string and the store compares strings.
 *
 *   user:  [userName, externalId|null, givenName|null, familyName|null, [[email, primary 1|0|-1, type|null]…]|null, active 0|1|null]
 *   group: [displayName, externalId|null]
 *
 * `active` is null while unassigned (removed by a SCIM PATCH): the platform's value is left alone.
 * An e-mail's `primary` is 1 (true), -1 (false, said so) or 0 (not said: the form written before
 * a said false was kept, so that stored identities read the same). The platform is sent and
 * compared with `primary: true` or `false` either way (user-diff.ts): false and unsaid differ for
 * the bridge's SCIM answers only.
 *
 * The index entries (lower-cased userName/displayName, externalId, lower-cased e-mails) are derived
 * from it by the store's Lua with ASCII lower-casing; only when that would differ from JavaScript's
 * (non-ASCII text) are they stored beside it (`ix`). An e-mail equal to the userName is not indexed
 * separately: look-ups by e-mail also consult the userName index.
 */

type StoredEmail = [string, StoredPrimary, string | null];
/** An e-mail's primary: true, not said, false. */
type StoredPrimary = 1 | 0 | -1;
type StoredUserDoc = [
  string,
  string | null,
  string | null,
  string | null,
  StoredEmail[] | null,
  0 | 1 | null,
];
type StoredGroupDoc = [string, string | null];

export interface IndexEntries {
  /** lower-cased userName / displayName */
  n: string;
  /** externalId as the source gave it */
  x?: string;
  /** lower-cased e-mail values other than n (users) */
  e?: string[];
}

export function canonicalName(name: PersonName | undefined): PersonName | undefined {
  if (!name) return undefined;
  const out: PersonName = {};
  if (name.givenName !== undefined) out.givenName = name.givenName;
  if (name.familyName !== undefined) out.familyName = name.familyName;
  return Object.keys(out).length > 0 ? out : undefined;
}

export function canonicalEmails(emails: readonly Email[] | undefined): Email[] | undefined {
  if (!emails || emails.length === 0) return undefined;
  return emails.map((e) => {
    const out: Email = { value: e.value };
    if (e.type !== undefined) out.type = e.type;
    if (e.primary !== undefined) out.primary = e.primary;
    return out;
  });
}

export function canonicalUserJson(user: DesiredUser): string {
  const emails = (user.emails ?? []).map((e): StoredEmail => [e.value, storedPrimary(e), e.type ?? null]);
  const doc: StoredUserDoc = [
    user.userName,
    user.externalId ?? null,
    user.name?.givenName ?? null,
    user.name?.familyName ?? null,
    emails.length > 0 ? emails : null,
    user.active === undefined ? null : user.active ? 1 : 0,
  ];
  return JSON.stringify(doc);
}

export function canonicalGroupJson(group: Omit<DesiredGroup, 'members'>): string {
  const doc: StoredGroupDoc = [group.displayName, group.externalId ?? null];
  return JSON.stringify(doc);
}

export function parseStoredUser(id: string, json: string): DesiredUser {
  const [userName, externalId, givenName, familyName, emails, active] = JSON.parse(json) as StoredUserDoc;
  const user: DesiredUser = { id, userName };
  if (active !== null) user.active = active === 1;
  if (externalId !== null) user.externalId = externalId;
  if (givenName !== null || familyName !== null) {
    user.name = {};
    if (givenName !== null) user.name.givenName = givenName;
    if (familyName !== null) user.name.familyName = familyName;
  }
  if (emails) {
    user.emails = emails.map(([value, primary, type]) => {
      const email: Email = { value };
      if (type !== null) email.type = type;
      if (primary !== 0) email.primary = primary === 1;
      return email;
    });
  }
  return user;
}

function storedPrimary(email: Email): StoredPrimary {
  if (email.primary === undefined) return 0;
  return email.primary ? 1 : -1;
}

export function parseStoredGroup(id: string, json: string, members: string[]): DesiredGroup {
  const [displayName, externalId] = JSON.parse(json) as StoredGroupDoc;
  return { id, displayName, ...(externalId === null ? {} : { externalId }), members };
}

/** The user's index entries, or undefined when the store's ASCII derivation gives the same ones. */
export function userIndexEntries(user: DesiredUser): IndexEntries | undefined {
  const texts = [user.userName, ...(user.emails ?? []).map((e) => e.value)];
  if (texts.every(isAscii)) return undefined;
  const n = user.userName.toLowerCase();
  const e = [...new Set((user.emails ?? []).map((m) => m.value.toLowerCase()))].filter((m) => m !== n);
  return { n, ...(user.externalId === undefined ? {} : { x: user.externalId }), e };
}

export function groupIndexEntries(group: Omit<DesiredGroup, 'members'>): IndexEntries | undefined {
  if (isAscii(group.displayName)) return undefined;
  return {
    n: group.displayName.toLowerCase(),
    ...(group.externalId === undefined ? {} : { x: group.externalId }),
  };
}

/** The key of the userName / displayName index, as the store writes it. */
export function nameIndexKey(name: string): string {
  return name.toLowerCase();
}

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}
