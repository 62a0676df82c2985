import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import type { IdentityState } from '../store/reconcile-state.store.js';
import type { Lookup, Observed } from './identity-kind.js';
import { Parked } from './parked.js';
import { decision, type ReconcileDeps, type ReconcileRun } from './reconcile-context.js';

export interface Sighting<K extends IdentityKind> {
  /** The target's resource for this identity, when one is known to exist. */
  resource?: Observed<K>;
  /** True when it was adopted just now from a full sync's listing. */
  adopted: boolean;
  /** True when a fresh full-sync listing showed no match at all: create without looking up. */
  absent: boolean;
}

/**
 * What the target holds for the identity. A fresh observation from a full sync's listing saves the
 * GET (and the look-ups); it is fresh when taken after the bridge last wrote to this identity. An
 * observation that disagrees with the known target id is not trusted. Otherwise: GET by target id,
 * where 404 forgets the id (deleted out of band).
 */
export async function observe<K extends IdentityKind>(
  deps: ReconcileDeps,
  kind: K,
  id: string,
  state: IdentityState<unknown>,
  run: ReconcileRun,
): Promise<Sighting<K>> {
  const seen = run.observation;
  if (seen && seen.observedAt > (state.lastAppliedAt ?? 0)) {
    const resource = seen.resource as Observed<K> | null;
    if (resource && resource.id === state.targetId) return { resource, adopted: false, absent: false };
    if (resource && !state.targetId) {
      await adoptOrRefuse(deps, kind, id, resource.id, run);
      return { resource, adopted: true, absent: false };
    }
    if (!resource && !state.targetId) return { adopted: false, absent: true };
  }
  if (!state.targetId) return { adopted: false, absent: false };
  const resource = (await deps.platform.get(kind, state.targetId, run.trace)) as Observed<K> | undefined;
  if (resource) return { resource, adopted: false, absent: false };
  decision(run, 'target-gone', { targetId: state.targetId });
  await deps.state.forgetTarget(kind, id);
  return { adopted: false, absent: false };
}

/** First match of the look-ups, in order (SPEC §6 matching). */
export async function lookUp<K extends IdentityKind>(
  deps: ReconcileDeps,
  kind: K,
  lookups: readonly Lookup[],
  run: ReconcileRun,
): Promise<Observed<K> | undefined> {
  for (const lookup of lookups) {
    const match = await findMatch(deps, kind, lookup, run);
    if (match) {
      decision(run, 'matched', { by: lookup.attribute, targetId: match.id });
      return match;
    }
  }
  return undefined;
}

async function findMatch<K extends IdentityKind>(
  deps: ReconcileDeps,
  kind: K,
  { attribute, value }: Lookup,
  run: ReconcileRun,
): Promise<Observed<K> | undefined> {
  const found = (await deps.platform.findBy(kind, attribute, value, run.trace)) as Observed<K>[];
  return found.find((r) => matches(r, attribute, value));
}

/**
 * The identity's platform account, found by its look-ups and adopted (SPEC §6 matching): the first
 * match, externalId before userName / displayName. Every look-up runs, so that two different
 * unmanaged accounts fitting one identity (one by externalId, another by name) are seen: the bridge
 * then takes neither, parks the identity and records an `ambiguous` conflict naming both.
 */
export async function matchOnPlatform<K extends IdentityKind>(
  deps: ReconcileDeps,
  kind: K,
  id: string,
  lookups: readonly Lookup[],
  run: ReconcileRun,
): Promise<Observed<K> | undefined> {
  // The look-ups run at once (one round trip, not one each); their answers are taken in order.
  const answers = await Promise.all(lookups.map((lookup) => findMatch(deps, kind, lookup, run)));
  const found: { resource: Observed<K>; by: string }[] = [];
  answers.forEach((resource, i) => {
    if (resource && !found.some((f) => f.resource.id === resource.id))
      found.push({ resource, by: lookups[i]?.attribute ?? '' });
  });
  const [first] = found;
  if (!first) return undefined;
  if (found.length > 1) {
    const holders = await Promise.all(found.map((f) => deps.state.sourceIdForTarget(kind, f.resource.id)));
    if (holders.every((holder) => holder === undefined)) {
      const candidates = found.map((f) => ({ targetId: f.resource.id, by: f.by, name: nameOf(f.resource) }));
      await park(deps, kind, id, { kind: 'ambiguous', account: { by: first.by, candidates } }, run);
    }
  }
  decision(run, 'matched', { by: first.by, targetId: first.resource.id });
  await adoptOrRefuse(deps, kind, id, first.resource.id, run, first.by);
  return first.resource;
}

/** userName and displayName compare case-insensitively (RFC 7643 §4.1.1, §4.2); externalId exactly. */
function matches(resource: Observed<IdentityKind>, attribute: string, value: string): boolean {
  const actual = (resource as unknown as Record<string, unknown>)[attribute];
  if (typeof actual !== 'string') return false;
  return attribute === 'externalId' ? actual === value : actual.toLowerCase() === value.toLowerCase();
}

function nameOf(resource: Observed<IdentityKind>): string {
  return 'userName' in resource ? resource.userName : resource.displayName;
}

/**
 * Records that the bridge manages this target resource. A resource already managed for another
 * identity is not taken over (two identities would then fight over it). When that identity belongs
 * to another input, this one is parked with an `account` conflict for an admin (no retry: waiting
 * changes nothing); of the same input, it is a conflict retried, as the other identity may be about
 * to move away (a rename in progress). `by`: what matched, for the conflict.
 */
export async function adoptOrRefuse(
  deps: ReconcileDeps,
  kind: IdentityKind,
  id: string,
  targetId: string,
  run: ReconcileRun,
  by = 'listing',
): Promise<void> {
  const holder = await deps.state.sourceIdForTarget(kind, targetId);
  if (holder !== undefined && holder !== id) {
    const [mine, theirs] = await Promise.all([
      deps.state.ownerOf(kind, id),
      deps.state.ownerOf(kind, holder),
    ]);
    if (mine !== undefined && theirs !== undefined && mine !== theirs)
      await park(deps, kind, id, { kind: 'account', holder, account: { targetId, by } }, run);
    throw new BridgeError(
      'target_conflict',
      `The matching target ${kind} ${targetId} is managed for "${holder}"`,
      {
        retryable: true,
        status: 409,
        detail: `already managed for ${kind} "${holder}"`,
      },
    );
  }
  decision(run, 'adopt', { targetId });
  await deps.state.setTarget(kind, id, targetId);
}

/**
 * Parks the identity with a conflict and ends the run (Parked). One no longer desired is not parked
 * (nothing to resolve for it): the caller goes on as before.
 */
async function park(
  deps: ReconcileDeps,
  kind: IdentityKind,
  id: string,
  conflict: Parameters<ReconcileDeps['state']['park']>[2],
  run: ReconcileRun,
): Promise<void> {
  const conflictId = await deps.state.park(kind, id, conflict);
  if (conflictId === undefined) return;
  decision(run, 'parked', {
    conflict: conflictId,
    reason: conflict.kind,
    ...(conflict.account.targetId ? { targetId: conflict.account.targetId } : {}),
    ...(conflict.holder ? { holder: conflict.holder } : {}),
  });
  throw new Parked(conflictId);
}

/**
 * A create whose answer was lost leaves a resource the bridge never recorded. When such an
 * identity is to be deprovisioned, find that resource by the externalId the create carried (never
 * by name: that could be someone else's) and take it on, so it can be deprovisioned like any other.
 */
export async function claimLostCreate<D>(
  deps: ReconcileDeps,
  kind: IdentityKind,
  id: string,
  state: IdentityState<D>,
  run: ReconcileRun,
): Promise<IdentityState<D>> {
  if (state.targetId || !state.pendingCreate) return state;
  const sighting = await observe(deps, kind, id, state, run);
  let targetId = sighting.resource?.id;
  if (!targetId && !sighting.absent) {
    const found = await lookUp(deps, kind, [{ attribute: 'externalId', value: state.pendingCreate }], run);
    if (found) {
      await adoptOrRefuse(deps, kind, id, found.id, run, 'externalId');
      targetId = found.id;
    }
  }
  if (!targetId) {
    decision(run, 'no-lost-create');
    await deps.state.markCreating(kind, id, '');
    return state;
  }
  return { ...state, targetId, managed: true };
}
