import type { ObservedGroup } from './group-diff.js';
import type { IdentityKind } from './identity.js';
import type { ObservedUser } from './user-diff.js';

/**
 * What a full sync keeps of each resource of the platform's listing (store/sync-listing.store.ts):
 * the attributes the bridge manages, as a compact JSON array without the id (the key holds it):
 *
 *   user:  [userName, externalId|null, [givenName|null, familyName|null]|null, [[email, 0|1]…]|null, 1|0|null]
 *   group: [displayName, externalId|null, [member value…]]
 */

type PackedUser = [
  string,
  string | null,
  [string | null, string | null] | null,
  [string, 0 | 1][] | null,
  0 | 1 | null,
];
type PackedGroup = [string, string | null, string[]];

export function packObserved(kind: IdentityKind, resource: ObservedUser | ObservedGroup): string {
  if (kind === 'group') {
    const group = resource as ObservedGroup;
    const packed: PackedGroup = [
      group.displayName,
      group.externalId ?? null,
      (group.members ?? []).map((m) => m.value),
    ];
    return JSON.stringify(packed);
  }
  const user = resource as ObservedUser;
  const packed: PackedUser = [
    user.userName,
    user.externalId ?? null,
    user.name ? [user.name.givenName ?? null, user.name.familyName ?? null] : null,
    user.emails ? user.emails.map((e) => [e.value, e.primary === true ? 1 : 0]) : null,
    user.active === undefined || user.active === null ? null : user.active ? 1 : 0,
  ];
  return JSON.stringify(packed);
}

export function unpackObserved(kind: 'user', id: string, text: string): ObservedUser;
export function unpackObserved(kind: 'group', id: string, text: string): ObservedGroup;
export function unpackObserved(kind: IdentityKind, id: string, text: string): ObservedUser | ObservedGroup;
export function unpackObserved(kind: IdentityKind, id: string, text: string): ObservedUser | ObservedGroup {
  if (kind === 'group') {
    const [displayName, externalId, members] = JSON.parse(text) as PackedGroup;
    return { id, displayName, externalId, members: members.map((value) => ({ value })) };
  }
  const [userName, externalId, name, emails, active] = JSON.parse(text) as PackedUser;
  return {
    id,
    userName,
    externalId,
    ...(name ? { name: { givenName: name[0], familyName: name[1] } } : {}),
    ...(emails ? { emails: emails.map(([value, primary]) => ({ value, primary: primary === 1 })) } : {}),
    active: active === null ? null : active === 1,
  };
}

/** The name a listed resource is matched by (SPEC §6): userName / displayName, without regard to case. */
export function observedName(kind: IdentityKind, resource: ObservedUser | ObservedGroup): string {
  return (
    kind === 'user' ? (resource as ObservedUser).userName : (resource as ObservedGroup).displayName
  ).toLowerCase();
}
