import type { DesiredUser, IdentityKey } from '../domain/identity.js';
import type { ReconcileProducer } from '../queue/reconcile.producer.js';
import type {
  BatchOptions,
  BatchResult,
  ChangeOptions,
  DesiredChange,
  DesiredStateStore,
  GroupInput,
  WriteStatus,
} from '../store/desired-state.store.js';

export interface WriteResult {
  status: WriteStatus;
  touched: IdentityKey[];
}

/**
 * The one API every source uses. Each call stores its changes atomically, and the same script marks
 * every identity it changed dirty: the workers' feeder turns those marks into reconcile jobs within
 * a few tens of milliseconds (queue/dirty-feeder.ts), so an input never waits on the queue and a
 * crash after the write loses nothing.
 */
export class DesiredStateApi {
  constructor(
    readonly store: DesiredStateStore,
    private readonly producer: ReconcileProducer,
  ) {}

  /** Applies a batch all or nothing (SPEC §5.2). */
  apply(changes: readonly DesiredChange[], options?: BatchOptions): Promise<BatchResult> {
    return this.store.apply(changes, options);
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

  /** Enqueues reconcile runs now, whatever the desired state (e.g. a retry asked for by an operator). */
  async enqueue(keys: readonly IdentityKey[]): Promise<void> {
    if (keys.length > 0) await this.producer.enqueue(keys);
  }

  private async one(change: DesiredChange): Promise<WriteResult> {
    const result = await this.apply([change]);
    return { status: result.results[0] ?? 'unchanged', touched: result.touched };
  }
}
