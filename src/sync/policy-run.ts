import { BridgeError } from '../domain/errors.js';
import { compilePolicy, DEFAULT_POLICY, type CompiledPolicy } from '../domain/identity-policy.js';
import type { FullRead } from '../domain/input.js';
import type { FullSyncDeps } from './full-sync.context.js';
import { PreviewRecorder } from './policy-preview.js';

/** What a policy read needs of the run (sync-read.ts's RunContext). */
export interface PolicyRunContext {
  syncId: string;
  record: { candidate?: unknown };
  scope?: string;
  /** Set here: how the run's scope and mapping differ from those it is compared with. */
  preview?: PreviewRecorder;
}
type RunContext = PolicyRunContext;

/**
 * The scope and mapping a full sync reads its input with (docs/scope-and-mapping.md), recorded on
 * the sync by fingerprint and settings. The read maps every identity twice — and records how the
 * two differ (policy-preview.ts) — when there is something to compare: a preview's candidate
 * against the configuration in force, or the configuration in force against the one of the
 * input's last applied sync, when it changed since (the `configuration-changed` guard).
 */
export async function policyReader(deps: FullSyncDeps, run: RunContext, base: FullRead): Promise<FullRead> {
  const capability = base.policy;
  if (!capability) return base;
  let after = capability.active;
  let before: CompiledPolicy | undefined;
  if (run.record.candidate !== undefined) {
    const compiled = compilePolicy(run.record.candidate, 'candidate');
    if (!compiled.policy) {
      throw new BridgeError('invalid_input', 'The candidate scope and mapping do not compile', {
        problems: compiled.problems,
      });
    }
    before = capability.active;
    after = compiled.policy;
  } else if (run.scope !== undefined) {
    before = await changedSince(deps, run, after);
  }
  const { fingerprint, settings } = after;
  await deps.store.records.update(run.syncId, { policy: { fingerprint, settings } });
  if (!before) return base;
  const recorder = new PreviewRecorder(before, after, run.record.candidate !== undefined);
  run.preview = recorder;
  const compared = capability.compared(before, after, recorder);
  return {
    ...compared,
    stream: async (sink, options) => {
      await compared.stream(sink, options);
      await deps.store.records.update(run.syncId, { preview: recorder.preview });
    },
  };
}

/** The input's last applied scope and mapping, when they differ from the ones in force. */
async function changedSince(
  deps: FullSyncDeps,
  run: RunContext,
  now: CompiledPolicy,
): Promise<CompiledPolicy | undefined> {
  const last = await deps.store.records.lastPolicyOf(run.scope ?? '', run.syncId);
  if (last === undefined) return undefined;
  // A sync from before scopes and mappings existed read with the default.
  const previous = last === null ? DEFAULT_POLICY : compilePolicy(last.settings, 'previous').policy;
  return previous && previous.fingerprint !== now.fingerprint ? previous : undefined;
}

/** Removals and renames a changed configuration makes: what its guard weighs. */
export function configurationChange(run: RunContext, deprovision: number): { removals: number } | undefined {
  return run.preview ? { removals: deprovision + run.preview.preview.renames } : undefined;
}
