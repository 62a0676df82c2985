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
/** Writes after which a reconcile run follows (the others: owned elsewhere, parked). */
const RUNS: ReadonlySet<WriteStatus> = new Set(['created', 'updated', 'unchanged', 'changed']);

interface Written {
  key: IdentityKey;
  write: WriteStatus;
}

/**
 * Applies one identity through the desired state as its input's own, as a delta read writes a
 * change (the source is the truth: `force`), so that ownership, parking and the reconcile
 * pipeline's idempotence hold; a group's member users are written and reconciled first, as a full
 * sync orders them, so that the group is created or patched with all of them at once. An identity
 * whose desired state is unchanged is enqueued all the same: its run checks the platform. Then
 * waits, up to `waitMs`, until every written identity has been reconciled since.
 */
export async function applyIdentity(
  deps: ProvisionDeps,
  owner: Owner,
  identity:
    { kind: 'user'; desired: DesiredUser } | { kind: 'group'; desired: DesiredGroup; members: DesiredUser[] },
  waitMs: number,
): Promise<AppliedStep> {
  const deadline = Date.now() + waitMs;
  const since = deps.store.now();
  const members: Written[] = [];
  if (identity.kind === 'group' && identity.members.length > 0) {
    members.push(
      ...(await write(
        deps,
        owner,
        identity.members.map((user) => upsertUser(user)),
      )),
    );
    await settle(deps, members, since, deadline);
  }
  const change: DesiredChange =
    identity.kind === 'user'
      ? upsertUser(identity.desired)
      : { op: 'upsertGroup', group: identity.desired, mode: 'force', signal: SIGNAL };
  const written = [...(await write(deps, owner, [change])), ...members];
  const progress = await settle(deps, written, since, deadline);
  return summarize(written, progress, since, waitMs);
}

function upsertUser(user: DesiredUser): DesiredChange {
  return { op: 'upsertUser', user, mode: 'force', signal: SIGNAL };
}

async function write(deps: ProvisionDeps, owner: Owner, changes: DesiredChange[]): Promise<Written[]> {
  const written: Written[] = [];
  for (let i = 0; i < changes.length; i += BATCH) {
    const batch = changes.slice(i, i + BATCH);
    const result = await deps.store.apply(batch, { owner });
    batch.forEach((change, n) =>
      written.push({ key: keyOf(change), write: result.results[n] ?? 'unchanged' }),
    );
  }
  const unchanged = written.filter((w) => w.write === 'unchanged').map((w) => w.key);
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
  for (;;) {
    const progress = await deps.store.progress(written.map((w) => w.key));
    const open = written.filter((w, i) => RUNS.has(w.write) && !reconciled(progress[i], since));
    if (open.length === 0 || Date.now() >= deadline) return progress;
    await pause(Math.min(LOOK_EVERY_MS, Math.max(0, deadline - Date.now())));
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
  if (own && !RUNS.has(own.write))
    return { state: 'not-applied', reason: notApplied(own.key.kind, own.write), ...shown };
  const failed = identities.find((i) => i.result === 'failed');
  if (failed)
    return {
      state: 'failed',
      reason: `the platform refused ${failed.kind} ${failed.id}: ${failed.error?.message ?? 'see its trace'}`,
      ...shown,
    };
  const open = written.some((w, i) => RUNS.has(w.write) && !reconciled(progress[i], since));
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
