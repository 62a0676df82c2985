import type {
  BatchOptions,
  BatchResult,
  ChangeOptions,
  DesiredChange,
  GroupInput,
  Owner,
  WriteStatus,
} from '../domain/desired-change.js';
import type { DesiredUser, IdentityKey } from '../domain/identity.js';

export interface WriteResult {
  status: WriteStatus;
  touched: IdentityKey[];
}

/** What the API writes through: the desired-state store's atomic batch. */
export interface DesiredStateWriter {
  apply(changes: readonly DesiredChange[], options?: BatchOptions): Promise<BatchResult>;
}

/**
 * The one API every source writes through. Each call stores its changes atomically, and the same
 * script marks every identity it changed dirty: the workers' feeder turns those marks into
 * reconcile jobs within a few tens of milliseconds (queue/dirty-feeder.ts), so an input never
 * waits on the queue and a crash after the write loses nothing.
 *
 * Every write is made as one input, its owner (SPEC §6, Ownership): the batch's `owner`, else the
 * API's own (`as(owner)`), else the store's default (the configured directory). The store applies
 * nothing to an identity another input owns (`owned-elsewhere`) and parks an identity whose name
 * another input's identity holds (`parked`); both record a conflict for an admin.
 */
export class DesiredStateApi {
  constructor(
    private readonly writer: DesiredStateWriter,
    readonly owner?: Owner,
  ) {}

  /** The same API, writing as another input. */
  as(owner: Owner): DesiredStateApi {
    return new DesiredStateApi(this.writer, owner);
  }

  /** Applies a batch all or nothing (SPEC §5.2). */
  apply(changes: readonly DesiredChange[], options?: BatchOptions): Promise<BatchResult> {
    const owner = options?.owner ?? this.owner;
    return this.writer.apply(changes, owner === undefined ? options : { ...options, owner });
  }

  upsertUser(user: DesiredUser, options: ChangeOptions & { extra?: unknown } = {}): Promise<WriteResult> {
    return this.one({ op: 'upsertUser', user, ...options });
  }

  deleteUser(id: string, options: ChangeOptions = {}): Promise<WriteResult> {
    return this.one({ op: 'deleteUser', id, ...options });
  }

  /** Upserts a group; `members: undefined` keeps its current members. */
  upsertGroup(group: GroupInput, options: ChangeOptions & { extra?: unknown } = {}): Promise<WriteResult> {
    return this.one({ op: 'upsertGroup', group, ...options });
  }

  deleteGroup(id: string, options: ChangeOptions = {}): Promise<WriteResult> {
    return this.one({ op: 'deleteGroup', id, ...options });
  }

  addMembers(groupId: string, userIds: readonly string[], options: ChangeOptions = {}): Promise<WriteResult> {
    return this.one({ op: 'addMembers', groupId, userIds, ...options });
  }

  removeMembers(
    groupId: string,
    userIds: readonly string[],
    options: ChangeOptions = {},
  ): Promise<WriteResult> {
    return this.one({ op: 'removeMembers', groupId, userIds, ...options });
  }

  private async one(change: DesiredChange): Promise<WriteResult> {
    const result = await this.apply([change]);
    return { status: result.results[0] ?? 'unchanged', touched: result.touched };
  }
}
