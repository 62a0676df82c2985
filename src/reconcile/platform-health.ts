import type { BridgeError } from '../domain/errors.js';
import type { Logger } from '../ops/logger.js';
import { setPlatformHealth, type Metrics, type PlatformHealthState } from '../ops/metrics.js';
import type { PlatformHealthStore } from '../store/platform-health.store.js';

/** How long processing pauses, in one place: grows with each failed probe, up to a ceiling. */
export const HEALTH_DEFAULTS = {
  /** Consecutive 5xx/network failures after which the target counts as unavailable… */
  unavailableAfter: 3,
  /** …when no request has succeeded for this long either (a flaky platform is not a down one). */
  unavailableQuietMs: 2_000,
  firstPauseMs: 2_000,
  maxPauseMs: 60_000,
} as const;

export type Verdict =
  /** Retry this job with back-off (spends an attempt). */
  | { kind: 'retry' }
  /** Pause all processing for a while without spending an attempt. */
  | { kind: 'pause'; ms: number }
  /** Not the target's health: decide by the error itself. */
  | { kind: 'none' };

/**
 * Tracks the target's health from the outcomes of requests: 401/403 → auth-failed, a run of
 * 5xx/network failures → unavailable, 429 → rate-limited, any success → reachable. While the target
 * is unhealthy, jobs are not failed: processing pauses (the paused job is the probe) and resumes by
 * itself once a request succeeds.
 */
export class PlatformHealth {
  private consecutiveFailures = 0;
  private pauses = 0;
  private pausedUntil = 0;
  private lastSuccessAt = 0;

  constructor(
    private readonly store: PlatformHealthStore,
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  async succeeded(): Promise<void> {
    this.lastSuccessAt = Date.now();
    this.consecutiveFailures = 0;
    this.pauses = 0;
    this.pausedUntil = 0;
    await this.set('reachable');
  }

  async failed(error: BridgeError): Promise<Verdict> {
    switch (error.code) {
      case 'target_unauthorized':
      case 'target_forbidden':
        await this.set('auth-failed', error.message);
        return { kind: 'pause', ms: this.nextPause() };
      case 'target_rate_limited':
        await this.set('rate-limited', error.message);
        return { kind: 'pause', ms: error.retryAfterMs ?? HEALTH_DEFAULTS.firstPauseMs };
      case 'target_unavailable':
      case 'target_server_error':
      case 'target_network_error':
        this.consecutiveFailures++;
        if (
          this.consecutiveFailures < HEALTH_DEFAULTS.unavailableAfter ||
          Date.now() - this.lastSuccessAt < HEALTH_DEFAULTS.unavailableQuietMs
        ) {
          return { kind: 'retry' };
        }
        await this.set('unavailable', error.message);
        return { kind: 'pause', ms: this.nextPause() };
      default:
        return { kind: 'none' };
    }
  }

  /**
   * The pause grows per failed probe, not per job: the jobs that fail together at the start of an
   * outage share one pause.
   */
  private nextPause(): number {
    const now = Date.now();
    if (now < this.pausedUntil) return this.pausedUntil - now;
    const ms = Math.min(HEALTH_DEFAULTS.firstPauseMs * 2 ** this.pauses, HEALTH_DEFAULTS.maxPauseMs);
    this.pauses++;
    this.pausedUntil = now + ms;
    return ms;
  }

  private async set(state: PlatformHealthState, detail?: string): Promise<void> {
    setPlatformHealth(this.metrics, state);
    const changed = await this.store.write(state, detail, this.now()).catch(() => false);
    if (changed) this.logger.warn({ platformHealth: state, detail }, `target is ${state}`);
  }
}
