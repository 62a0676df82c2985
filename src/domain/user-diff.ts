import { platformExternalId, type DesiredUser, type Email } from './identity.js';
import type { PatchOperation } from './scim-patch.js';

/** A user as the target holds it, reduced to what the bridge manages. */
export interface ObservedUser {
  id: string;
  userName: string;
  externalId?: string | null;
  name?: { givenName?: string | null; familyName?: string | null } | null;
  emails?: readonly { value: string; primary?: boolean | null }[] | null;
  active?: boolean | null;
}

export type UserAttribute = 'userName' | 'externalId' | 'active' | 'name' | 'emails';

/**
 * The version of the rules diffUser compares by. A full sync records a user it found matching by
 * the digest of its desired state and its account (store/sync-clean.store.ts, cleanDigest) and
 * counts it unchanged while both stay the same: bump this when the rules change, so that no user
 * found matching under the old ones is skipped under the new.
 */
export const USER_COMPARISON_VERSION = 1;

export interface UserDiff {
  /** Managed attributes that differ; empty when the target already matches. */
  attributes: UserAttribute[];
  /** The smallest PATCH that makes the target match. */
  operations: PatchOperation[];
}

/**
 * The body of a POST, and the managed attributes a PUT sets (RFC 7643 §4.1). An unassigned `active`
 * is left out: a create takes the platform's default, and a PUT (which carries the resource as the
 * platform holds it) keeps the platform's value.
 */
export function userBody(user: DesiredUser): Record<string, unknown> {
  const body: Record<string, unknown> = {
    userName: user.userName,
    externalId: platformExternalId(user),
    ...(user.active === undefined ? {} : { active: user.active }),
  };
  const name = nameOf(user.name);
  if (name.givenName !== undefined || name.familyName !== undefined) body.name = stripUndefined(name);
  const emails = emailsOf(user.emails);
  if (emails.length > 0) body.emails = emails;
  return body;
}

/**
 * The body of a PUT (RFC 7644 §3.5.1) from the user as the platform holds it (less id, meta and
 * schemas), made to match: the managed attributes set, the e-mails and name parts the desired user
 * lacks taken out (a PUT that carried the platform's own would keep them), name parts and
 * attributes the bridge does not manage left as they are. An unassigned `active` keeps the
 * platform's value, as in userBody.
 */
export function replacedUser(user: DesiredUser, current: Record<string, unknown>): Record<string, unknown> {
  const { name: held, emails: _emails, ...rest } = current;
  const { name: managed, ...body } = userBody(user);
  const others =
    typeof held === 'object' && held !== null && !Array.isArray(held)
      ? Object.fromEntries(
          Object.entries(held).filter(([part]) => part !== 'givenName' && part !== 'familyName'),
        )
      : {};
  const name = { ...others, ...(managed as Record<string, unknown> | undefined) };
  return { ...rest, ...body, ...(Object.keys(name).length > 0 ? { name } : {}) };
}

export function diffUser(desired: DesiredUser, observed: ObservedUser): UserDiff {
  const attributes: UserAttribute[] = [];
  const operations: PatchOperation[] = [];
  const replace = (attribute: UserAttribute, value: unknown) => {
    attributes.push(attribute);
    operations.push({ op: 'replace', path: attribute, value });
  };
  if (observed.userName !== desired.userName) replace('userName', desired.userName);
  if ((observed.externalId ?? undefined) !== platformExternalId(desired))
    replace('externalId', platformExternalId(desired));
  // Unassigned (RFC 7644 §3.5.2.2: removed): whatever the platform holds stays, enabled or not.
  if (desired.active !== undefined && (observed.active ?? true) !== desired.active)
    replace('active', desired.active);
  const nameOps = diffName(desired, observed);
  if (nameOps.length > 0) {
    attributes.push('name');
    operations.push(...nameOps);
  }
  const want = emailsOf(desired.emails);
  if (emailKey(want) !== emailKey(emailsOf(observed.emails ?? undefined))) {
    attributes.push('emails');
    operations.push(
      want.length > 0 ? { op: 'replace', path: 'emails', value: want } : { op: 'remove', path: 'emails' },
    );
  }
  return { attributes, operations };
}

function diffName(desired: DesiredUser, observed: ObservedUser): PatchOperation[] {
  const want = nameOf(desired.name);
  const have = nameOf(observed.name ?? undefined);
  const operations: PatchOperation[] = [];
  for (const part of ['givenName', 'familyName'] as const) {
    if (want[part] === have[part]) continue;
    const path = `name.${part}`;
    operations.push(
      want[part] === undefined ? { op: 'remove', path } : { op: 'replace', path, value: want[part] },
    );
  }
  return operations;
}

function nameOf(name: { givenName?: string | null; familyName?: string | null } | undefined | null) {
  return { givenName: name?.givenName ?? undefined, familyName: name?.familyName ?? undefined };
}

/** E-mails as the platform keeps them: value and primary (seed document). */
function emailsOf(emails: readonly (Email | { value: string; primary?: boolean | null })[] | undefined) {
  return (emails ?? []).map((e) => ({ value: e.value, primary: e.primary === true }));
}

/** E-mail addresses compare case-insensitively (RFC 7643 §4.1.2: emails.value caseExact false). */
function emailKey(emails: readonly { value: string; primary: boolean }[]): string {
  return emails
    .map((e) => `${e.value.toLowerCase()}|${e.primary ? 1 : 0}`)
    .sort()
    .join('\n');
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
