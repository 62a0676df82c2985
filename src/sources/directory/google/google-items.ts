import type { CompiledPolicy } from '../../../domain/identity-policy.js';
import { attachFacts, memberKey, type IdentityFactsSource } from '../../../domain/policy-context.js';
import type { GoogleSettings } from './google.settings.js';

/**
 * Google's users and groups as the bridge's items (SPEC §5.5), and the facts a scope or mapping
 * reads of them (docs/google-workspace.md, "Scope and mapping"). A user: `id` (immutable; the
 * platform's externalId) → id, `primaryEmail` → userName and primary e-mail, `name.givenName` /
 * `familyName` (Google's zero-width space, its "empty" name, is empty), `suspended` or `archived`
 * → inactive. A group: `id`, `name` → displayName.
 */

export interface GoogleUser {
  id: string;
  primaryEmail: string;
  name?: { givenName?: string; familyName?: string; fullName?: string };
  suspended?: boolean;
  archived?: boolean;
  aliases?: string[];
  [field: string]: unknown;
}

export interface GoogleGroup {
  id: string;
  email: string;
  name?: string;
  description?: string;
  directMembersCount?: string;
  aliases?: string[];
}

/** A group as membership facts name it: `memberOf` takes its id, address, alias or name. */
export interface GroupNames {
  id: string;
  email: string;
  name: string;
  aliases: readonly string[];
}

/** The groups a user is in (directly or nested), and the groups it owns or manages directly. */
export interface UserGroups {
  groups: readonly GroupNames[];
  ownerOf: readonly string[];
  managerOf: readonly string[];
}

/** The user attributes a read asks Google for, beyond those it maps (a scope or mapping may read them). */
const FACT_FIELDS = [
  'orgUnitPath',
  'isAdmin',
  'isDelegatedAdmin',
  'isEnrolledIn2Sv',
  'creationTime',
  'lastLoginTime',
  'emails',
  'externalIds',
  'organizations',
  'relations',
  'isGuestUser',
];

/** Attribute names a scope or mapping may read of a user without custom schemas. */
const STANDARD = new Set(
  [
    'id',
    'primaryEmail',
    'email',
    'givenName',
    'familyName',
    'fullName',
    'suspended',
    'archived',
    'aliases',
    'ownerOf',
    'managerOf',
    ...FACT_FIELDS,
    'department',
    'title',
    'costCenter',
    'manager',
  ].map((name) => name.toLowerCase()),
);

/** What a read must ask for and attach to serve these scopes and mappings. */
export interface GoogleNeeds {
  facts: boolean;
  /** Each user's groups (memberOf, groups) or roles (ownerOf, managerOf). */
  membership: boolean;
  /** The groups a user owns or manages (ownerOf, managerOf). */
  roles: boolean;
  /** `projection` and `customFieldMask` of users.list and users.get. */
  projection: { projection?: string; customFieldMask?: string };
}

export function googleNeeds(policies: readonly CompiledPolicy[], settings: GoogleSettings): GoogleNeeds {
  const custom = policies.filter((p) => !p.isDefault);
  const attributes = custom.flatMap((p) => p.users.attributes.map((a) => a.toLowerCase()));
  const roles = attributes.some((a) => a === 'ownerof' || a === 'managerof');
  const membership = roles || custom.some((p) => p.users.readsMembership);
  const needsSchemas = attributes.some((a) => !STANDARD.has(a));
  const projection =
    settings.customSchemas.length > 0
      ? { projection: 'custom', customFieldMask: settings.customSchemas.join(',') }
      : needsSchemas
        ? { projection: 'full' }
        : {};
  return { facts: custom.length > 0, membership, roles, projection };
}

/** The `fields` of a user, as users.list and users.get trim their answers. */
export function userFields(needs: GoogleNeeds): string {
  const mapped = 'id,primaryEmail,name(givenName,familyName,fullName),suspended,archived,aliases';
  if (!needs.facts) return mapped;
  const schemas = needs.projection.projection === undefined ? [] : ['customSchemas'];
  return [mapped, ...FACT_FIELDS, ...schemas].join(',');
}

export function isGoogleUser(raw: unknown): raw is GoogleUser {
  const user = raw as Partial<GoogleUser> | null;
  return typeof user?.id === 'string' && user.id !== '' && typeof user.primaryEmail === 'string';
}

export function isGoogleGroup(raw: unknown): raw is GoogleGroup {
  const group = raw as Partial<GoogleGroup> | null;
  return typeof group?.id === 'string' && group.id !== '' && typeof group.email === 'string';
}

/** A user as a snapshot item, its facts attached when a scope or mapping reads them. */
export function userItem(user: GoogleUser, needs: GoogleNeeds, groups?: UserGroups): Record<string, unknown> {
  const givenName = plainName(user.name?.givenName);
  const familyName = plainName(user.name?.familyName);
  const item: Record<string, unknown> = {
    id: user.id,
    userName: user.primaryEmail,
    emails: [{ value: user.primaryEmail, primary: true }],
    active: user.suspended !== true && user.archived !== true,
  };
  if (givenName !== undefined || familyName !== undefined)
    item.name = { ...(givenName ? { givenName } : {}), ...(familyName ? { familyName } : {}) };
  return needs.facts ? attachFacts(item, userFacts(user, groups)) : item;
}

export function groupItem(group: GoogleGroup, members: readonly string[] | undefined, needs: GoogleNeeds) {
  const item: Record<string, unknown> = { id: group.id, displayName: group.name || group.email };
  if (members !== undefined) item.members = members;
  return needs.facts ? attachFacts(item, groupFacts(group)) : item;
}

export function groupNames(group: GoogleGroup): GroupNames {
  return { id: group.id, email: group.email, name: group.name ?? '', aliases: group.aliases ?? [] };
}

/** The addresses by which Google's audit log may name a user or group (lower case). */
export function addressesOf(entity: { primaryEmail?: string; email?: string; aliases?: unknown }): string[] {
  const primary = entity.primaryEmail ?? entity.email;
  const aliases = Array.isArray(entity.aliases) ? entity.aliases.filter((a) => typeof a === 'string') : [];
  return [primary, ...aliases].filter((a): a is string => typeof a === 'string').map((a) => a.toLowerCase());
}

/** Google takes a zero-width space for an empty name (ssosync, internal/google/client.go). */
function plainName(name: string | undefined): string | undefined {
  const plain = name?.replace(/\u200b|\u200c|\u200d|\ufeff/g, '').trim();
  return plain === '' ? undefined : plain;
}

class Facts implements IdentityFactsSource {
  readonly dn = '';
  private readonly byName = new Map<string, string[]>();

  constructor(
    readonly groups: readonly string[] = [],
    readonly memberKeys: ReadonlySet<string> = new Set(),
  ) {}

  add(name: string, value: unknown): void {
    if (value === undefined || value === null || typeof value === 'object') return;
    const key = name.toLowerCase();
    const list = this.byName.get(key) ?? [];
    list.push(String(value));
    this.byName.set(key, list);
  }

  attribute(name: string): string {
    return this.values(name)[0] ?? '';
  }

  values(name: string): string[] {
    return this.byName.get(name.toLowerCase()) ?? [];
  }
}

/**
 * A user's facts: Google's attributes by name (`orgUnitPath`, `isAdmin`, `givenName`…), `email`
 * the primary address, `aliases`, `emails`, `externalIds` (and `externalId.<type>`), the first
 * organization's `department`, `title`, `costCenter`, the `manager` relation, each custom schema
 * field as `<Schema>.<field>` (and by its own name), and its groups: `groups` (their addresses),
 * `memberOf` (an id, address, alias or name), `ownerOf` and `managerOf` (addresses).
 */
export function userFacts(user: GoogleUser, groups?: UserGroups): IdentityFactsSource {
  const keys = new Set<string>();
  for (const g of groups?.groups ?? [])
    for (const k of [g.id, g.email, g.name, ...g.aliases]) if (k) keys.add(memberKey(k));
  const facts = new Facts(
    (groups?.groups ?? []).map((g) => g.email),
    keys,
  );
  for (const [name, value] of Object.entries(user)) facts.add(name, value);
  facts.add('email', user.primaryEmail);
  facts.add('givenName', plainName(user.name?.givenName));
  facts.add('familyName', plainName(user.name?.familyName));
  facts.add('fullName', user.name?.fullName);
  for (const alias of user.aliases ?? []) facts.add('aliases', alias);
  for (const email of list(user.emails)) facts.add('emails', (email as { address?: unknown }).address);
  for (const id of list(user.externalIds)) {
    const { value, type, customType } = id as { value?: unknown; type?: unknown; customType?: unknown };
    facts.add('externalIds', value);
    facts.add(`externalId.${String(type === 'custom' ? customType : type)}`, value);
  }
  const organization = (list(user.organizations).find((o) => (o as { primary?: unknown }).primary === true) ??
    list(user.organizations)[0]) as Record<string, unknown> | undefined;
  for (const field of ['department', 'title', 'costCenter', 'location'])
    facts.add(field, organization?.[field]);
  const manager = list(user.relations).find((r) => (r as { type?: unknown }).type === 'manager');
  facts.add('manager', (manager as { value?: unknown } | undefined)?.value);
  addSchemas(facts, user.customSchemas);
  for (const group of groups?.ownerOf ?? []) facts.add('ownerOf', group);
  for (const group of groups?.managerOf ?? []) facts.add('managerOf', group);
  return facts;
}

function groupFacts(group: GoogleGroup): IdentityFactsSource {
  const facts = new Facts();
  for (const [name, value] of Object.entries(group)) facts.add(name, value);
  for (const alias of group.aliases ?? []) facts.add('aliases', alias);
  return facts;
}

/** `customSchemas: {Schema: {field: value | [{value}]}}` as `Schema.field` and `field`. */
function addSchemas(facts: Facts, schemas: unknown): void {
  if (typeof schemas !== 'object' || schemas === null) return;
  for (const [schema, fields] of Object.entries(schemas)) {
    if (typeof fields !== 'object' || fields === null) continue;
    for (const [field, value] of Object.entries(fields)) {
      const values = Array.isArray(value) ? value.map((v) => (v as { value?: unknown })?.value) : [value];
      for (const v of values) {
        facts.add(`${schema}.${field}`, v);
        facts.add(field, v);
      }
    }
  }
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value.filter((v) => typeof v === 'object' && v !== null) : [];
}
