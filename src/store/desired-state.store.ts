import {
  canonicalGroupJson,
  canonicalUserJson,
  groupIndexEntries,
  parseStoredGroup,
  parseStoredUser,
  userIndexEntries,
  type IndexEntries,
} from '../domain/canonical.js';
import { BridgeError } from '../domain/errors.js';
import { boundedEventTime } from '../domain/event-time.js';
import { identityIdProblem } from '../domain/platform-rules.js';
import { findMalformedText, formatJsonPath, MALFORMED_TEXT_REASON } from '../domain/well-formed-text.js';
import {
  directoryOwner,
  isOwner,
  type BatchOptions,
  type BatchResult,
  type DesiredChange,
  type Owner,
  type Signal,
  type WriteStatus,
} from '../domain/desired-change.js';
import type { DesiredGroup, DesiredUser, IdentityKey } from '../domain/identity.js';
import { parseKey } from '../domain/identity.js';
import type { Keys } from './keys.js';
import { LuaScript } from './lua-script.js';
import { applyBatchKeys } from './lua/desired-state.keys.js';
import { APPLY_BATCH } from './lua/desired-state.lua.js';
import type { RedisClock } from './redis-clock.js';
import type { RedisClient } from './redis-connection.js';
import { storeCall } from './redis-errors.js';
import { replicated } from './replica-ack.js';

const applyBatchScript = new LuaScript(APPLY_BATCH);

/**
 * The desired state in Redis: users, groups and memberships keyed by their source id, with the
 * indexes the SCIM server and matching need, and the input that owns each. Every write goes through
 * one Lua script that applies a batch atomically as one input (its owner: SPEC §6, Ownership) and
 * marks what it changed dirty, so a reconcile job is owed even if the process dies before
 * enqueueing. Sources use the DesiredStateApi.
 */
export class DesiredStateStore {
  /**
   * `defaultOwner`: the owner of a batch that names none — the configured directory
   * (`directory:<DIRECTORY_NAME>`), which is also what identities stored without an owner become.
   */
  constructor(
    private readonly redis: RedisClient,
    readonly keys: Keys,
    readonly clock: RedisClock,
    readonly defaultOwner: Owner = directoryOwner('directory'),
  ) {}

  async apply(changes: readonly DesiredChange[], options: BatchOptions = {}): Promise<BatchResult> {
    checkBatch(changes, options);
    const now = this.clock.now();
    const ops = changes.map((change) => this.toOp(change, now));
    const events = options.events;
    const owner = options.owner ?? this.defaultOwner;
    const batch = {
      owner,
      ops,
      ...(events ? { events: { ids: events.ids, ttl: events.ttlSeconds } } : {}),
      ...(options.forSync === true ? {} : { wake: true }),
    };
    const { keys, families } = applyBatchKeys(this.keys, {
      forSync: options.forSync === true,
      owner,
      targets: changes.map(changeTarget),
      eventKeys: events ? events.ids.map((id) => this.keys.seenEvent(events.source, id)) : [],
    });
    // The owner's source digest stands for what its last full read wrote: a write of any other
    // path forgets it (source-digest.store.ts), sent first on the same connection.
    const forget = () => (options.forSync === true ? 0 : this.redis.hdel(this.keys.sourceDigests(), owner));
    const [, reply] = await storeCall(() =>
      Promise.all([
        forget(),
        applyBatchScript.run(this.redis, keys, [now, JSON.stringify(batch), ...families]),
      ]),
    );
    const parsed = JSON.parse(reply as string) as {
      results?: WriteStatus[] | Record<string, never>;
      duplicates?: string[] | Record<string, never>;
      touched?: string[] | Record<string, never>;
      conflict?: { index: number; owner: string };
      modified?: number;
      invalid?: { index: number; reason: string };
    };
    if (parsed.invalid) throw invalidOpError(parsed.invalid);
    if (parsed.conflict) throw conflictError(changes[parsed.conflict.index], parsed.conflict.owner);
    if (parsed.modified !== undefined) {
      throw new BridgeError('conflict', 'The identity changed meanwhile; read it again', {
        scimType: 'modified',
      });
    }
    // What an input is told was stored, the replicas hold too (REDIS_MIN_REPLICAS).
    await replicated(this.redis);
    return {
      results: asArray(parsed.results),
      duplicates: asArray(parsed.duplicates),
      touched: asArray(parsed.touched)
        .map(parseKey)
        .filter((k): k is IdentityKey => k !== undefined),
    };
  }

  async getUser(id: string): Promise<DesiredUser | undefined> {
    const json = await storeCall(() => this.redis.get(this.keys.doc('user', id)));
    return json === null ? undefined : parseStoredUser(id, json);
  }

  async getGroup(id: string): Promise<DesiredGroup | undefined> {
    const [json, members] = await storeCall(() =>
      Promise.all([this.redis.get(this.keys.doc('group', id)), this.redis.smembers(this.keys.members(id))]),
    );
    return json === null ? undefined : parseStoredGroup(id, json, members.sort());
  }

  private toOp(change: DesiredChange, now: number): Record<string, unknown> {
    const common = {
      ...(change.ifVersion === undefined ? {} : { ifv: String(change.ifVersion) }),
      ...(change.eventTime === undefined ? {} : { evt: String(boundedEventTime(change.eventTime, now)) }),
      ...(change.eventIndex === undefined ? {} : { event: change.eventIndex }),
      entry: change.signal ? this.entry(change.signal, now) : '',
      mode: change.mode ?? 'unique',
    };
    switch (change.op) {
      case 'upsertUser':
        return {
          op: change.op,
          id: change.user.id,
          doc: canonicalUserJson(change.user),
          ...indexField(userIndexEntries(change.user)),
          ...(change.clean ? { clean: true } : {}),
          ...extraField(change.extra),
          ...common,
        };
      case 'upsertGroup':
        return {
          op: change.op,
          id: change.group.id,
          doc: canonicalGroupJson(change.group),
          ...indexField(groupIndexEntries(change.group)),
          ...(change.clean ? { clean: true } : {}),
          ...(change.group.members ? { members: [...new Set(change.group.members)] } : {}),
          ...extraField(change.extra),
          ...common,
        };
      case 'deleteUser':
      case 'deleteGroup':
        return { op: change.op, id: change.id, ...common };
      case 'addMembers':
      case 'removeMembers':
        return { op: change.op, id: change.groupId, members: [...new Set(change.userIds)], ...common };
    }
  }

  private entry(signal: Signal, now: number): string {
    return JSON.stringify({
      at: now,
      type: 'signal',
      source: signal.source,
      ...(signal.detail ? { detail: signal.detail } : {}),
    });
  }
}

function indexField(entries: IndexEntries | undefined): { ix?: string } {
  return entries ? { ix: JSON.stringify(entries) } : {};
}

/** The identity a change applies to: the one whose keys the batch script gets for it. */
function changeTarget(change: DesiredChange): IdentityKey {
  switch (change.op) {
    case 'upsertUser':
      return { kind: 'user', id: change.user.id };
    case 'upsertGroup':
      return { kind: 'group', id: change.group.id };
    case 'deleteUser':
      return { kind: 'user', id: change.id };
    case 'deleteGroup':
      return { kind: 'group', id: change.id };
    case 'addMembers':
    case 'removeMembers':
      return { kind: 'group', id: change.groupId };
  }
}

/**
 * Everything the batch script could fail on is refused here, before anything is sent: ids the
 * keys and the membership index cannot hold (identityIdProblem), text that is not well-formed
 * Unicode (the script's JSON decoder refuses lone surrogates), event times that are not numbers.
 */
function checkBatch(changes: readonly DesiredChange[], options: BatchOptions): void {
  changes.forEach((change, index) => {
    const ids = [
      changeTarget(change).id,
      ...('userIds' in change ? change.userIds : []),
      ...('group' in change && change.group.members ? change.group.members : []),
    ];
    for (const id of ids) {
      const problem = identityIdProblem(id);
      if (problem) throw invalidChange(index, `the id ${JSON.stringify(id)} ${idReason(problem)}`);
    }
    const malformed = findMalformedText(change);
    if (malformed) throw invalidChange(index, `${formatJsonPath(malformed)}: ${MALFORMED_TEXT_REASON}`);
    if (change.eventTime !== undefined && !Number.isFinite(change.eventTime)) {
      throw invalidChange(index, 'eventTime: not a time');
    }
  });
  if (options.owner !== undefined && !isOwner(options.owner)) {
    throw new BridgeError('invalid_input', `${JSON.stringify(options.owner)} is not an owner`);
  }
  const malformed = findMalformedText(options.events?.ids ?? []);
  if (malformed) throw new BridgeError('invalid_input', `An event id is ${MALFORMED_TEXT_REASON}`);
}

function idReason(problem: string): string {
  return problem === 'empty' ? 'is empty' : `${problem} (ids hold none)`;
}

function invalidChange(index: number, reason: string): BridgeError {
  return new BridgeError('invalid_input', `Change ${index} is invalid: ${reason}`, { status: 400 });
}

function invalidOpError(invalid: { index: number; reason: string }): BridgeError {
  return new BridgeError(
    'invalid_input',
    `The store refused the batch (change ${invalid.index}): ${invalid.reason}`,
  );
}

function extraField(extra: unknown): { extra?: string } {
  if (extra === undefined) return {};
  return { extra: extra === null ? '' : JSON.stringify(extra) };
}

function asArray<T>(value: T[] | Record<string, never> | undefined): T[] {
  return Array.isArray(value) ? value : [];
}

function conflictError(change: DesiredChange | undefined, _owner: string): BridgeError {
  const [attribute, value] =
    change?.op === 'upsertUser'
      ? ['userName', change.user.userName]
      : change?.op === 'upsertGroup'
        ? ['displayName', change.group.displayName]
        : ['name', ''];
  return new BridgeError('conflict', `${attribute} "${value}" is already taken by another identity`, {
    scimType: 'uniqueness',
  });
}
