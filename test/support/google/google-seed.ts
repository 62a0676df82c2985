import { randomBytes, randomInt } from 'node:crypto';
import {
  newEtag,
  type ExternalId,
  type GroupRecord,
  type MemberRecord,
  type MemberRole,
  type MemberType,
  type UserRecord,
  type WorkspaceModel,
} from './google-model.js';

/**
 * Puts users, groups and memberships into the account as if they had always been there — no
 * audit record, no check that Google would have refused it (a membership cycle can be seeded, to
 * prove a reader survives one). The control API (google-control.ts) builds on these and records
 * what Google records.
 */

export interface UserInput {
  primaryEmail: string;
  givenName?: string;
  familyName?: string;
  id?: string;
  suspended?: boolean;
  archived?: boolean;
  isAdmin?: boolean;
  orgUnitPath?: string;
  aliases?: string[];
  externalIds?: ExternalId[];
  customSchemas?: Record<string, Record<string, unknown>>;
  creationTime?: number;
}

export interface GroupInput {
  email: string;
  name?: string;
  description?: string;
  id?: string;
  aliases?: string[];
}

/** A member by address (user, group, alias, or an address outside the account) or by id. */
export interface MemberInput {
  email?: string;
  id?: string;
  role?: MemberRole;
  /** CUSTOMER: everyone in the account (no address). Otherwise found from the address. */
  type?: MemberType;
}

/** A Google-like user id: 21 digits. */
export function userId(random: () => number = Math.random): string {
  const head = String(Math.floor(1e10 + random() * 9e10));
  return head + String(Math.floor(random() * 1e10)).padStart(10, '0');
}

/** A Google-like group id: "0" and 14 base-36 characters. */
export function groupId(random: () => number = Math.random): string {
  const part = () =>
    Math.floor(random() * 36 ** 7)
      .toString(36)
      .padStart(7, '0');
  return `0${part()}${part()}`;
}

export function seedUser(model: WorkspaceModel, input: UserInput, now: number): UserRecord {
  const id = input.id ?? userId();
  if (model.users.has(id) || model.deleted.has(id)) throw new Error(`the user id ${id} is taken`);
  const user: UserRecord = {
    id,
    primaryEmail: input.primaryEmail,
    givenName: input.givenName ?? input.primaryEmail.split('@')[0] ?? '',
    familyName: input.familyName ?? 'User',
    suspended: input.suspended ?? false,
    archived: input.archived ?? false,
    isAdmin: input.isAdmin ?? false,
    orgUnitPath: input.orgUnitPath ?? '/',
    aliases: input.aliases ? input.aliases.slice() : [],
    externalIds: input.externalIds ? input.externalIds.map((e) => Object.assign({}, e)) : [],
    customSchemas:
      input.customSchemas && Object.keys(input.customSchemas).length > 0
        ? structuredClone(input.customSchemas)
        : {},
    creationTime: input.creationTime ?? now,
    etag: newEtag(),
  };
  const addresses = [user.primaryEmail, ...user.aliases];
  for (const address of addresses) {
    if (!model.ours(address)) throw new Error(`${address} is not in the account's domains`);
    if (model.resolve(address)) throw new Error(`the address ${address} is already taken`);
  }
  for (const address of addresses) model.index(address, 'user', id);
  model.users.set(id, user);
  model.changed();
  return user;
}

export function seedGroup(model: WorkspaceModel, input: GroupInput, foreign = false): GroupRecord {
  const id = input.id ?? groupId();
  if (model.groups.has(id)) throw new Error(`the group id ${id} is taken`);
  const group: GroupRecord = {
    id,
    email: input.email,
    name: input.name ?? input.email.split('@')[0] ?? '',
    description: input.description ?? '',
    aliases: [...(input.aliases ?? [])],
    foreign,
    etag: newEtag(),
  };
  const addresses = [group.email, ...group.aliases];
  for (const address of addresses) {
    if (foreign === model.ours(address))
      throw new Error(`${address} is ${foreign ? '' : 'not '}in the account's domains`);
    if (model.resolve(address)) throw new Error(`the address ${address} is already taken`);
  }
  for (const address of addresses) model.index(address, 'group', id);
  model.groups.set(id, group);
  model.changed();
  return group;
}

/** Adds a direct member (replacing one of the same id); returns the record. */
export function seedMember(model: WorkspaceModel, groupKey: string, input: MemberInput): MemberRecord {
  const group = model.group(groupKey);
  if (!group || group.foreign) throw new Error(`the account has no group ${groupKey}`);
  const member = memberRecord(model, input);
  model.link(group.id, member);
  return member;
}

/** The record a member input stands for (not yet linked); throws for one Google would not accept. */
export function memberRecord(model: WorkspaceModel, input: MemberInput): MemberRecord {
  const role = input.role ?? 'MEMBER';
  if (input.type === 'CUSTOMER') return { id: model.customerId, type: 'CUSTOMER', role, etag: newEtag() };
  const key = input.id ?? input.email;
  if (key === undefined) throw new Error('a member needs an address or an id');
  const found = model.users.get(key)
    ? { kind: 'user', id: key }
    : model.groups.get(key)
      ? { kind: 'group', id: key }
      : model.resolve(key);
  if (found) {
    const type = found.kind === 'user' ? 'USER' : 'GROUP';
    const primary =
      type === 'USER' ? model.users.get(found.id)?.primaryEmail : model.groups.get(found.id)?.email;
    const alias =
      input.email && input.email.toLowerCase() !== primary?.toLowerCase() ? input.email : undefined;
    return {
      id: found.id,
      type,
      role,
      etag: newEtag(),
      ...(alias && type === 'USER' ? { viaAlias: alias } : {}),
    };
  }
  if (input.email === undefined || model.ours(input.email)) {
    throw new Error(`no user or group ${key} in the account`);
  }
  return {
    id: externalId(model, input.email),
    type: input.type ?? 'USER',
    role,
    externalEmail: input.email,
    etag: newEtag(),
  };
}

const externalIds = new WeakMap<WorkspaceModel, Map<string, string>>();

/** An address outside the account keeps one id (Google gives external members ids too). */
function externalId(model: WorkspaceModel, email: string): string {
  const known = externalIds.get(model) ?? new Map<string, string>();
  externalIds.set(model, known);
  const id =
    known.get(email.toLowerCase()) ??
    String(randomInt(1, 10)) + randomBytes(10).readBigUInt64BE().toString().padStart(20, '0').slice(0, 20);
  known.set(email.toLowerCase(), id);
  return id;
}
