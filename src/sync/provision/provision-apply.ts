import type { DesiredChange, Owner, Signal, WriteStatus } from '../../domain/desired-change.js';
import type { DesiredGroup, DesiredUser, IdentityKey, IdentityKind } from '../../domain/identity.js';
import {
  MEMBERS_SHOWN,
  type AppliedIdentity,
  type AppliedStep,
  type ProvisionDeps,
  type ReconcileProgress,
} from './provision-types.js';

const SIGNAL: Signal = { source: 'admin', detail: 'provision on demand' };
const BATCH = 1000;
const LOOK_EVERY_MS = 100;
/** Writes that mark the identity dirty: a reconcile run follows (not: owned elsewhere, parked). */
const CHANGED: ReadonlySet<WriteStatus> = new Set(['created', 'updated', 'changed']);

interface Written {
  key: IdentityKey;
  write: WriteStatus;
  /** A reconcile run follows the write (a changed desired state, or one enqueued all the same). */
  runs: boolean;
}

/**
 * Applies one identity through the desired state as its input's own, as a delta read writes a
 * change (the source is the truth: `force`), so that ownership, parking and the reconcile
 * pipeline's idempotence hold; a group's member users are written and reconciled first, as a full
 * sync orders them, so that the group is created or patched with all of them at once. The
 * identity itself is reconciled even when its desired state is unchanged (its run checks the
 * platform); so is a member that has no platform account yet, while a member unchanged and
 * provisioned is left as it is. Then waits, up to `waitMs`, until each run has ended.
 */
export async function applyIdentity(
  deps: ProvisionDeps,
  owner: Owner,
  identity:
    | { kind: 'user'; desired: DesiredUser }
    | {
        kind: 'group';
        desired: DesiredGroup;
        members: DesiredUser[];
        /** Members the bridge has a platform account for. */
        provisioned: ReadonlySet<string>;
      },
  waitMs: number,
): Promise<AppliedStep> {
  const deadline = Date.now() + waitMs;
  const since = deps.store.now();
  const members: Written[] = [];
  if (identity.kind === 'group' && identity.members.length > 0) {
    const { provisioned } = identity;
    members.push(
      ...(await write(deps, owner, identity.members.map(upsertUser), (key) => !provisioned.has(key.id))),
    );
    await settle(deps, members, since, deadline);
  }
  const change: DesiredChange =
    identity.kind === 'user'
      ? upsertUser(identity.desired)
      : { op: 'upsertGroup', group: identity.desired, mode: 'force', signal: SIGNAL };
  const written = [...(await write(deps, owner, [change], () => true)), ...members];
  const progress = await settle(deps, written, since, deadline);
  return summarize(written, progress, since, waitMs);
}

function upsertUser(user: DesiredUser): DesiredChange {
  return { op: 'upsertUser', user, mode: 'force', signal: SIGNAL };
}

/** Writes the changes; enqueues a run for those the desired state already held that `check` picks. */
async function write(
  deps: ProvisionDeps,
  owner: Owner,
  changes: readonly DesiredChange[],
  check: (key: IdentityKey) => boolean,
): Promise<Written[]> {
  const written: Written[] = [];
  for (let i = 0; i < changes.length; i += BATCH) {
    const batch = changes.slice(i, i + BATCH);
    const result = await deps.store.apply(batch, { owner });
    batch.forEach((change, n) => {
      const write = result.results[n] ?? 'unchanged';
      const key = keyOf(change);
      written.push({ key, write, runs: CHANGED.has(write) || (write === 'unchanged' && check(key)) });
    });
  }
  const unchanged = written.filter((w) => w.runs && w.write === 'unchanged').map((w) => w.key);
  if (unchanged.length > 0) await deps.store.enqueue(unchanged);
  return written;
}

function keyOf(change: DesiredChange): IdentityKey {
  if (change.op === 'upsertUser') return { kind: 'user', id: change.user.id };
  return { kind: 'group', id: change.op === 'upsertGroup' ? change.group.id : '' };
}

/** The progress of the written identities once each has been reconciled since, or at the deadline. */
async function settle(
  deps: ProvisionDeps,
  written: readonly Written[],
  since: number,
  deadline: number,
): Promise<ReconcileProgress[]> {
  const pause = deps.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const progress: ReconcileProgress[] = written.map(() => ({ dirty: false }));
  // The first look reads them all; the next ones only those still waited for.
  let open = written.map((entry, index) => ({ entry, index }));
  for (;;) {
    const fresh = await deps.store.progress(open.map(({ entry }) => entry.key));
    open.forEach(({ index }, n) => (progress[index] = fresh[n] ?? { dirty: false }));
    open = open.filter(({ entry, index }) => entry.runs && !reconciled(progress[index], since));
    if (open.length === 0 || Date.now() >= deadline) return progress;
    // A large group is looked at less often: one look reads every member still waited for.
    const every = Math.min(1000, LOOK_EVERY_MS + open.length);
    await pause(Math.min(every, Math.max(0, deadline - Date.now())));
  }
}

function reconciled(progress: ReconcileProgress | undefined, since: number): boolean {
  if (!progress || progress.dirty || progress.lastAttemptAt === undefined) return false;
  return progress.lastAttemptAt >= since && progress.lastResult !== 'retrying';
}

function summarize(
  written: readonly Written[],
  progress: readonly ReconcileProgress[],
  since: number,
  waitMs: number,
): AppliedStep {
  const identities: AppliedIdentity[] = written.map((w, i) => view(w, progress[i]));
  const [own] = written;
  const shown = { identities: identities.slice(0, MEMBERS_SHOWN), total: identities.length };
  const follow = own
    ? `GET /admin/identities/${own.key.kind}s/${encodeURIComponent(own.key.id)}`
    : 'GET /admin/identities';
  if (identities.some((i) => i.write === 'parked' || i.result === 'parked'))
    return {
      state: 'parked',
      reason: 'parked by a conflict between inputs: see GET /admin/conflicts',
      ...shown,
    };
  if (own && !own.runs)
    return { state: 'not-applied', reason: notApplied(own.key.kind, own.write), ...shown };
  const failed = identities.find((i) => i.result === 'failed');
  if (failed)
    return {
      state: 'failed',
      reason: `the platform refused ${failed.kind} ${failed.id}: ${failed.error?.message ?? 'see its trace'}`,
      ...shown,
    };
  const open = written.some((w, i) => w.runs && !reconciled(progress[i], since));
  if (open)
    return {
      state: 'pending',
      reason: `still being reconciled after ${waitMs / 1000} s: follow it with ${follow}`,
      ...shown,
    };
  return { state: 'converged', reason: 'reconciled: the platform matches the desired state', ...shown };
}

function view(written: Written, progress: ReconcileProgress | undefined): AppliedIdentity {
  return {
    ...written.key,
    write: written.write,
    ...(progress?.lastResult ? { result: progress.lastResult } : {}),
    ...(progress?.targetId ? { targetId: progress.targetId } : {}),
    ...(progress?.lastError ? { error: progress.lastError } : {}),
  };
}

function notApplied(kind: IdentityKind, write: WriteStatus): string {
  if (write === 'owned-elsewhere')
    return `the ${kind} belongs to another input: nothing changed (a conflict is recorded: GET /admin/conflicts)`;
  return `the desired state did not take it (${write})`;
}
