/**
 * The desired state of one identity, as every source hands it to the store. Only the attributes
 * listed here are managed on the target (SPEC §6): users `userName`, `name`, `emails`, `active`,
 * `externalId`; groups `displayName`, `externalId`, `members`.
 */

export type IdentityKind = 'user' | 'group';

export interface PersonName {
  givenName?: string;
  familyName?: string;
}

export interface Email {
  value: string;
  primary?: boolean;
  type?: string;
}

export interface DesiredUser {
  /** The source's stable identifier: the bridge's key for this user. */
  id: string;
  /** The target's externalId; the id when the source gives none. */
  externalId?: string;
  userName: string;
  name?: PersonName;
  emails?: Email[];
  /**
   * Unassigned (RFC 7643 §2.5) after a SCIM PATCH removed it (RFC 7644 §3.5.2.2): the bridge then
   * leaves the platform's value as it is, so a disabled account stays disabled.
   */
  active?: boolean;
}

export interface DesiredGroup {
  id: string;
  externalId?: string;
  displayName: string;
  /** Source ids of the member users. */
  members: string[];
}

/** A whole directory: what a full sync makes the desired state equal to. */
export interface Snapshot {
  users: DesiredUser[];
  groups: DesiredGroup[];
}

export interface IdentityKey {
  kind: IdentityKind;
  id: string;
}

/** The externalId the target holds for an identity (SPEC §5.1, §5.4). */
export function platformExternalId(identity: { id: string; externalId?: string }): string {
  return identity.externalId ?? identity.id;
}

export function formatKey(key: IdentityKey): string {
  return `${key.kind}:${key.id}`;
}

export function parseKey(text: string): IdentityKey | undefined {
  const colon = text.indexOf(':');
  const kind = text.slice(0, colon);
  if (colon < 1 || (kind !== 'user' && kind !== 'group')) return undefined;
  return { kind, id: text.slice(colon + 1) };
}
