import { parseStoredGroup, parseStoredUser } from '../domain/canonical.js';
import type { Owner } from '../domain/desired-change.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis-connection.js';
import { execPipeline, storeCall } from './redis-errors.js';

/**
 * The read side of the desired state, for the bridge's SCIM server: identities by id, look-ups
 * through the indexes the store keeps, and pages in stable creation order. It reads the key layout
 * documented in keys.ts and never writes. Every call takes one round trip and turns a Redis outage
 * into `store_unavailable`.
 *
 * Scoped to an owner (`owner`), it sees only that input's identities (SPEC §6, Ownership): pages
 * and positions come from P:K:own:<owner>, identities of other inputs read as absent, index
 * look-ups also find the input's parked identities (P:K:pname / P:K:pext), and a user's groups are
 * the input's groups. An identity stored before owners existed (until the start-up migration gives
 * it one) is found by id in every scope, and in no scope's lists.
 */

interface StoredIdentity {
  id: string;
  /** Increases with every change: callers that read, change and write back pass it as ifVersion. */
  version: number;
  /** Attributes kept for SCIM answers but not managed on the target (the `x` field), parsed. */
  extra: Record<string, unknown> | undefined;
  /** First time the identity was stored, and its last desired change (ms, `cr` and `ts`). */
  createdMs: number;
  modifiedMs: number;
}

export interface StoredUser extends StoredIdentity {
  user: DesiredUser;
  /** Ids of the groups listing the user, when asked for. */
  groups?: string[];
}

export interface StoredGroup extends StoredIdentity {
  group: Omit<DesiredGroup, 'members'>;
  /** Member user ids, when asked for (sorted). */
  members?: string[];
}

export type UserIndex = 'userName' | 'externalId' | 'email' | 'group';
export type GroupIndex = 'displayName' | 'externalId' | 'member';

export interface Page {
  /** Every desired identity of the kind. */
  total: number;
  ids: string[];
}

export class DesiredStateQueries {
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    readonly scope: { owner?: Owner } = {},
  ) {}

  /** The creation-ordered set of the identities in scope. */
  private allKey(kind: IdentityKind): string {
    return this.scope.owner ? this.keys.owned(kind, this.scope.owner) : this.keys.all(kind);
  }

  /** Users by id, in the order asked; undefined where no such user is desired. */
  async users(
    ids: readonly string[],
    options: { groups?: boolean } = {},
  ): Promise<(StoredUser | undefined)[]> {
    const rows = await this.groupsInScope(await this.identities('user', ids, options.groups === true));
    return rows.map((row) => {
      if (!row) return undefined;
      const user = parseStoredUser(row.identity.id, row.desired);
      return { ...row.identity, user, ...(row.related ? { groups: row.related } : {}) };
    });
  }

  async groups(
    ids: readonly string[],
    options: { members?: boolean } = {},
  ): Promise<(StoredGroup | undefined)[]> {
    const rows = await this.identities('group', ids, options.members === true);
    return rows.map((row) => {
      if (!row) return undefined;
      const { members: _members, ...group } = parseStoredGroup(row.identity.id, row.desired, []);
      return { ...row.identity, group, ...(row.related ? { members: row.related } : {}) };
    });
  }

  /**
   * The stored identities of `ids`, with their groups (users) or members (groups) when asked for,
   * in one pipeline (see `read`).
   */
  private async identities(
    kind: IdentityKind,
    ids: readonly string[],
    withRelated: boolean,
  ): Promise<({ identity: StoredIdentity; desired: string; related?: string[] } | undefined)[]> {
    if (ids.length === 0) return [];
    const step = withRelated ? 4 : 3;
    const replies = await this.read((queue) => {
      for (const id of ids) {
        queue.get(this.keys.doc(kind, id));
        queue.get(this.keys.extra(kind, id));
        queue.hmget(this.keys.identity(kind, id), 'cr', 'ts', 'v', 'o');
        if (withRelated && kind === 'group') queue.smembers(this.keys.members(id));
        if (withRelated && kind === 'user')
          queue.zrangebylex(this.keys.memberOf(), `[${id}\n`, `(${id}\u000b`);
      }
    }, ids.length * step);
    return ids.map((id, index) => {
      const [desired, extra, fields, related] = replies.slice(index * step, index * step + step) as [
        string | null,
        string | null,
        (string | null)[],
        string[] | undefined,
      ];
      if (typeof desired !== 'string' || !this.inScope(fields[3])) return undefined;
      const identity = parseIdentity(id, extra, fields);
      const relatedIds =
        related && kind === 'user' ? related.map((entry) => entry.slice(id.length + 1)) : related;
      return { identity, desired, ...(withRelated ? { related: sorted(relatedIds) } : {}) };
    });
  }

  private inScope(owner: string | null | undefined): boolean {
    return !this.scope.owner || !owner || owner === this.scope.owner;
  }

  /** A user's groups, in scope: those of the scope's owner. */
  private async groupsInScope<R extends { related?: string[] }>(rows: (R | undefined)[]) {
    const related = [...new Set(rows.flatMap((row) => row?.related ?? []))];
    if (!this.scope.owner || related.length === 0) return rows;
    const kept = await this.positions('group', related);
    return rows.map((row) =>
      row?.related ? { ...row, related: row.related.filter((id) => kept.has(id)) } : row,
    );
  }

  /**
   * Ids of the users an index holds for a value: `userName` (case-insensitive), `externalId`
   * (exact), `email` (case-insensitive, any of the user's e-mails), `group` (members of a group id).
   */
  async userIds(index: UserIndex, value: string): Promise<string[]> {
    switch (index) {
      case 'userName':
        return this.indexLookup('user', 'name', value.toLowerCase());
      case 'externalId':
        return this.indexLookup('user', 'ext', value);
      case 'email':
        return this.emailLookup(value.toLowerCase());
      case 'group':
        return storeCall(() => this.redis.smembers(this.keys.members(value)));
    }
  }

  /** `displayName` (case-insensitive), `externalId` (exact), `member` (groups listing a user id). */
  async groupIds(index: GroupIndex, value: string): Promise<string[]> {
    switch (index) {
      case 'displayName':
        return this.indexLookup('group', 'name', value.toLowerCase());
      case 'externalId':
        return this.indexLookup('group', 'ext', value);
      case 'member': {
        const entries = await storeCall(() =>
          this.redis.zrangebylex(this.keys.memberOf(), `[${value}\n`, `(${value}\u000b`),
        );
        return entries.map((entry) => entry.slice(value.length + 1));
      }
    }
  }

  /** A page of ids in creation order (0-based offset) and the total, in one round trip. */
  async page(kind: IdentityKind, offset: number, count: number): Promise<Page> {
    const replies = await this.read(
      (queue) => {
        queue.zcard(this.allKey(kind));
        if (count > 0) queue.zrange(this.allKey(kind), offset, offset + count - 1);
      },
      count > 0 ? 2 : 1,
    );
    return { total: Number(replies[0]), ids: count > 0 ? (replies[1] as string[]) : [] };
  }

  /** The creation-order position of each id that is desired; ids without one are left out. */
  async positions(kind: IdentityKind, ids: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (ids.length === 0) return out;
    const scores = await storeCall(() => this.redis.zmscore(this.allKey(kind), ...ids));
    ids.forEach((id, index) => {
      const score = scores[index];
      if (score !== null && score !== undefined) out.set(id, Number(score));
    });
    return out;
  }

  /** The holder of a name / externalId and, in a scope, the scope's parked identity with it. */
  private async indexLookup(kind: IdentityKind, index: 'name' | 'ext', value: string): Promise<string[]> {
    const main = index === 'name' ? this.keys.nameIndex(kind) : this.keys.externalIdIndex(kind);
    const owner = this.scope.owner;
    if (!owner) return this.hashLookup(main, value);
    const parked = index === 'name' ? this.keys.parkedNameIndex(kind) : this.keys.parkedExternalIdIndex(kind);
    const [holder, own] = await storeCall(() =>
      Promise.all([this.redis.hget(main, value), this.redis.hget(parked, `${owner}\n${value}`)]),
    );
    return [...new Set([holder, own].filter((id): id is string => id !== null))];
  }

  private async hashLookup(key: string, field: string): Promise<string[]> {
    const id = await storeCall(() => this.redis.hget(key, field));
    return id === null ? [] : [id];
  }

  /**
   * Index members are "<lower-cased e-mail>\n<id>" at score 0: a lexicographic range finds them.
   * An e-mail equal to the user's userName is not indexed twice: the userName index holds it, and
   * that user counts when it really has the address.
   */
  private async emailLookup(email: string): Promise<string[]> {
    const [members, byName] = await storeCall(() =>
      Promise.all([
        this.redis.zrangebylex(this.keys.emailIndex(), `[${email}\n`, `(${email}\u000b`),
        this.redis.hget(this.keys.nameIndex('user'), email),
      ]),
    );
    const ids = members.map((member) => member.slice(email.length + 1));
    if (byName === null || ids.includes(byName)) return ids;
    const [named] = await this.users([byName]);
    const has = named?.user.emails?.some((e) => e.value.toLowerCase() === email) ?? false;
    return has ? [...ids, byName] : ids;
  }

  /**
   * Runs the read commands `queue` issues, as plain commands when there are at most two, else in one
   * pipeline, and returns their replies in order. An ioredis pipeline copies every script defined
   * on the connection (BullMQ defines dozens on the producer connection), which costs more than the
   * round trip it saves for one or two commands; measured under load, plain commands for one
   * identity's three or four reads did not pay off.
   */
  private async read(queue: (commands: ReadCommands) => void, expected: number): Promise<unknown[]> {
    if (expected <= 2) {
      const pending: Promise<unknown>[] = [];
      queue({
        get: (key) => pending.push(this.redis.get(key)),
        zrangebylex: (key, min, max) => pending.push(this.redis.zrangebylex(key, min, max)),
        hmget: (key, ...fields) => pending.push(this.redis.hmget(key, ...fields)),
        smembers: (key) => pending.push(this.redis.smembers(key)),
        zcard: (key) => pending.push(this.redis.zcard(key)),
        zrange: (key, start, stop) => pending.push(this.redis.zrange(key, start, stop)),
      });
      return storeCall(() => Promise.all(pending));
    }
    const pipeline = this.redis.pipeline();
    queue(pipeline);
    return execPipeline(pipeline);
  }
}

/** The read commands the queries issue (a pipeline has them all). */
interface ReadCommands {
  get(key: string): unknown;
  zrangebylex(key: string, min: string, max: string): unknown;
  hmget(key: string, ...fields: string[]): unknown;
  smembers(key: string): unknown;
  zcard(key: string): unknown;
  zrange(key: string, start: number, stop: number): unknown;
}

function parseIdentity(id: string, extra: string | null, [cr, ts, v]: (string | null)[]): StoredIdentity {
  const modifiedMs = Number(ts ?? 0);
  const createdMs = cr ? Number(cr) : modifiedMs;
  return { id, version: Number(v ?? 0), extra: parseExtra(extra), createdMs, modifiedMs };
}

function parseExtra(json: string | null | undefined): Record<string, unknown> | undefined {
  if (!json) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function sorted(reply: unknown): string[] {
  return Array.isArray(reply) ? (reply as string[]).slice().sort() : [];
}
