import { SizeLimitExceededError } from 'ldapts';
import { BridgeError } from '../../../domain/errors.js';
import type { ChangedEntries } from './ldap-delta-changes.js';
import { isUnder } from './ldap-context.js';
import { dnKey } from './ldap-dn.js';
import { allOf, anyOf, escapeFilterValue } from './ldap-filter.js';
import type { LdapReader } from './ldap-reader.js';
import { groupEntryAttributes, type LdapScope } from './ldap-scope.js';
import type { EntryValues } from './ldap-values.js';

/** Where a delta read stands in the access log: the last entry applied (its reqStart), if any. */
export interface LogPosition {
  /** Entries after this reqStart are new ('' : every entry). */
  at: string;
  /** The last log entry applied, which must still be in the log ('' : none yet). */
  entry: string;
}

export interface LogRead {
  position: LogPosition;
  entries: ChangedEntries;
  /** When the newest write read happened (ms). */
  newestAt?: number;
}

const SEARCH_BATCH = 100;
const LOG_ATTRIBUTES = [
  'reqStart',
  'reqType',
  'reqDN',
  'reqEntryUUID',
  'reqNewRDN',
  'reqNewSuperior',
  'reqOld',
];
const EMPTY: ChangedEntries = { users: [], groups: [], gone: [], groupDns: [] };

/**
 * The access log since a position (slapo-accesslog's log database, `logBase`): the successful writes
 * after it, in order. Without a position, only where the log ends now (its contextCSN's second:
 * entries of that second are read again, which is harmless). With a scope, the writes under the
 * user or group base become the changed entries as they are now, read again by entryUUID.
 */
export async function readAccessLog(
  reader: LdapReader,
  logBase: string,
  since: LogPosition | undefined,
  scope?: LdapScope,
): Promise<LogRead> {
  if (since === undefined) return { position: await endOfLog(reader, logBase), entries: EMPTY };
  if (since.entry !== '') await requireEntry(reader, logBase, since.entry);
  const writes = (await logWrites(reader, logBase, since.at))
    .filter((entry) => reqStart(entry) > since.at)
    .sort((a, b) => (reqStart(a) < reqStart(b) ? -1 : 1));
  const last = writes.at(-1);
  const position = last ? { at: reqStart(last), entry: reqStart(last) } : since;
  const newestAt = last ? generalizedTimeMs(reqStart(last)) : undefined;
  const entries = scope ? await changedEntries(reader, scope, writes) : EMPTY;
  return { position, entries, ...(newestAt === undefined ? {} : { newestAt }) };
}

/**
 * The successful writes logged from `from` (a reqStart; '' : from the start). A size limit (slapd's
 * default 500 holds for every account but the log database's rootdn, paged searches included) would
 * stop a longer backlog for good: the read is then split into time windows, halved until each fits,
 * up to the log's last write now. A window ends "not at or after the next µs", never with `<=`:
 * slapd 2.5 strips the asserted time's trailing zeros, so `reqStart<=t` misses an entry at t.
 */
async function logWrites(reader: LdapReader, logBase: string, from: string): Promise<EntryValues[]> {
  try {
    return await reader.search(logBase, writesFilter(from), LOG_ATTRIBUTES);
  } catch (error) {
    if (!isSizeLimitExceeded(error)) throw error;
  }
  const end = generalizedTimeMicros(await accessLogCsn(reader, logBase));
  return windowedWrites(reader, logBase, from === '' ? 0 : (generalizedTimeMicros(from) ?? 0), end ?? 0);
}

async function windowedWrites(
  reader: LdapReader,
  logBase: string,
  from: number,
  to: number,
): Promise<EntryValues[]> {
  try {
    return await reader.search(
      logBase,
      writesFilter(generalizedTime(from), generalizedTime(to + 1)),
      LOG_ATTRIBUTES,
    );
  } catch (error) {
    if (!isSizeLimitExceeded(error) || to <= from) throw error;
  }
  const middle = from + Math.floor((to - from) / 2);
  const earlier = await windowedWrites(reader, logBase, from, middle);
  return [...earlier, ...(await windowedWrites(reader, logBase, middle + 1, to))];
}

function writesFilter(from: string, before?: string): string {
  const bounds = [
    ...(from === '' ? [] : [`(reqStart>=${from})`]),
    ...(before === undefined ? [] : [`(!(reqStart>=${before}))`]),
  ];
  return allOf('(objectClass=auditWriteObject)', '(reqResult=0)', ...bounds);
}

function isSizeLimitExceeded(error: unknown): boolean {
  const cause = error instanceof BridgeError ? error.cause : error;
  return cause instanceof SizeLimitExceededError;
}

/** The log database's contextCSN: when it last logged a write ('' : never). */
export async function accessLogCsn(reader: LdapReader, logBase: string): Promise<string> {
  const root = await reader.entry(logBase, ['contextCSN']);
  if (root === undefined) {
    throw new BridgeError(
      'source_unavailable',
      `The LDAP server has no access log at ${logBase} (the accesslog overlay's log database, readable by the bind account)`,
      { retryable: false },
    );
  }
  return [...root.text('contextCSN')].sort().at(-1) ?? '';
}

async function endOfLog(reader: LdapReader, logBase: string): Promise<LogPosition> {
  const csn = await accessLogCsn(reader, logBase);
  if (csn === '') return { at: '', entry: '' };
  const second = `${csn.slice(0, 14)}Z`;
  const recent = await reader.search(logBase, `(reqStart>=${second})`, ['reqStart']);
  const newest = recent.map(reqStart).sort().at(-1);
  return newest ? { at: newest, entry: newest } : { at: `${csn.slice(0, 14)}.000000Z`, entry: '' };
}

async function requireEntry(reader: LdapReader, logBase: string, entry: string): Promise<void> {
  const found = await reader.search(logBase, `(reqStart=${escapeFilterValue(entry)})`, ['reqStart']);
  if (found.length > 0) return;
  throw new BridgeError(
    'watermark_untrusted',
    `The access log at ${logBase} no longer holds the last entry applied (${entry}): purged, or another log`,
  );
}

/**
 * The writes' entries as they are now: those still in scope read again by entryUUID (users, then
 * groups); those deleted or gone out of scope as ids to delete; the DNs of groups that were
 * renamed or deleted, whose containing groups change.
 */
async function changedEntries(
  reader: LdapReader,
  scope: LdapScope,
  writes: readonly EntryValues[],
): Promise<ChangedEntries> {
  const bases = [scope.userBase, scope.groupBase].map(dnKey);
  const inScope = (dn: string) => dn !== '' && bases.some((base) => isUnder(dnKey(dn), base));
  const changed = new Set<string>();
  const deleted = new Map<string, { id: string; dn: string }>();
  /** Each written entry's DN after the writes read. */
  const lastDn = new Map<string, string>();
  const groupDns: string[] = [];
  for (const write of writes) {
    const [type = '', dn = '', uuid = ''] = ['reqType', 'reqDN', 'reqEntryUUID'].map((a) => write.text(a)[0]);
    const renamedTo = type === 'modrdn' ? newDn(write, dn) : '';
    if (!inScope(dn) && !inScope(renamedTo)) continue;
    lastDn.set(uuid, renamedTo || dn);
    if (type === 'delete') {
      changed.delete(uuid);
      deleted.set(uuid, { id: oldId(write, scope, uuid) ?? '', dn });
      groupDns.push(dn);
    } else {
      changed.add(uuid);
      deleted.delete(uuid);
      // The groups that held it hold its new DN once the directory's referential integrity
      // rewrote them (slapo-refint), or still its old one without it.
      if (type === 'modrdn') groupDns.push(dn, renamedTo);
    }
  }
  const users = await byUuid(
    reader,
    scope.userBase,
    scope.mapping.userFilter,
    [...changed],
    userAttributes(scope),
  );
  const groups = await byUuid(
    reader,
    scope.groupBase,
    scope.mapping.groupFilter,
    [...changed],
    groupAttributes(scope),
  );
  const found = new Set([...users, ...groups].map((entry) => entry.text('entryUUID')[0]));
  const outOfScope = [...changed].filter((uuid) => !found.has(uuid));
  const kind = kindByBase(scope);
  const gone = [
    ...[...deleted.values()].filter(({ id }) => id !== '').map(({ id, dn }) => ({ id, ...kind(dn) })),
    ...outOfScope.flatMap((uuid) => (usesUuid(scope) ? [{ id: uuid, ...kind(lastDn.get(uuid) ?? '') }] : [])),
  ];
  return { users, groups, gone, groupDns };
}

/**
 * The kind of an entry by where its DN is: under the group base only, a group; under the user base
 * only, a user; under both (one base for both) or neither, unknown.
 */
function kindByBase(scope: LdapScope): (dn: string) => { kind?: 'user' | 'group' } {
  const [users, groups] = [scope.userBase, scope.groupBase].map(dnKey) as [string, string];
  return (dn) => {
    const key = dnKey(dn);
    const [user, group] = [isUnder(key, users), isUnder(key, groups)];
    if (group && !user) return { kind: 'group' };
    if (user && !group) return { kind: 'user' };
    return {};
  };
}

async function byUuid(
  reader: LdapReader,
  base: string,
  filter: string,
  uuids: readonly string[],
  attributes: readonly string[],
): Promise<EntryValues[]> {
  const out: EntryValues[] = [];
  for (let i = 0; i < uuids.length; i += SEARCH_BATCH) {
    const values = uuids.slice(i, i + SEARCH_BATCH).map(escapeFilterValue);
    out.push(...(await reader.search(base, allOf(filter, anyOf('entryUUID', values)), attributes)));
  }
  return out;
}

/** A renamed entry's new DN: its new RDN under its new superior, or under its old parent. */
function newDn(write: EntryValues, dn: string): string {
  const rdn = write.text('reqNewRDN')[0] ?? '';
  const superior = write.text('reqNewSuperior')[0];
  const comma = firstSeparator(dn);
  const parent = superior ?? (comma === -1 ? '' : dn.slice(comma + 1));
  return parent === '' ? rdn : `${rdn},${parent}`;
}

/** The first unescaped comma of a DN (RFC 4514: `\,` is part of a value). */
function firstSeparator(dn: string): number {
  for (let i = 0; i < dn.length; i++) {
    if (dn.charAt(i) === '\\') i++;
    else if (dn.charAt(i) === ',') return i;
  }
  return -1;
}

/** A deleted entry's id: its entryUUID, or the id attribute the log kept of it (`logold`). */
function oldId(write: EntryValues, scope: LdapScope, uuid: string): string | undefined {
  if (usesUuid(scope)) return uuid;
  const names = new Set([...scope.mapping.users.id, ...scope.mapping.groups.id].map((n) => n.toLowerCase()));
  for (const line of write.text('reqOld')) {
    const colon = line.indexOf(':');
    if (colon > 0 && names.has(line.slice(0, colon).toLowerCase())) return line.slice(colon + 1).trim();
  }
  return undefined;
}

function usesUuid(scope: LdapScope): boolean {
  const isUuid = (names: readonly string[]) => names[0]?.toLowerCase() === 'entryuuid';
  return isUuid(scope.mapping.users.id) && isUuid(scope.mapping.groups.id);
}

function reqStart(entry: EntryValues): string {
  return entry.text('reqStart')[0] ?? '';
}

function userAttributes(scope: LdapScope): string[] {
  return [...new Set(['entryUUID', ...Object.values(scope.mapping.users).flat()])];
}

function groupAttributes(scope: LdapScope): string[] {
  return [...new Set(['entryUUID', ...groupEntryAttributes(scope)])];
}

/** A generalized time or CSN (YYYYMMDDHHMMSS[.ffffff]Z…) as microseconds since the epoch. */
function generalizedTimeMicros(time: string): number | undefined {
  const ms = generalizedTimeMs(time);
  if (ms === undefined) return undefined;
  const fraction = /^\d{14}\.(\d{1,6})/.exec(time)?.[1] ?? '';
  return ms * 1000 + Number(fraction.padEnd(6, '0').slice(0, 6) || '0');
}

/** Microseconds since the epoch as a generalized time with six fraction digits, as reqStart is. */
function generalizedTime(micros: number): string {
  const date = new Date(Math.floor(micros / 1000));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const day = `${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}`;
  const time = `${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}`;
  return `${day}${time}.${pad(micros % 1_000_000, 6)}Z`;
}

/** A generalized time (YYYYMMDDHHMMSS[.f]Z) as milliseconds since the epoch. */
export function generalizedTimeMs(time: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})/.exec(time);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0);
}
