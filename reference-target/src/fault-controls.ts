import type {
  ErrorRateFault,
  FaultPlan,
  FaultSettings,
  LatencyFault,
  OutageFault,
  OutageMode,
  RateLimitFault,
} from './faults.js';
import type { Listener } from './listener.js';

/**
 * The switches tests and the control API flip. Each takes effect for the next SCIM request;
 * `null` (or `{}` for `apply`) switches a fault off. A `refuse` outage closes the port; clearing it
 * listens again on the same port.
 */
export interface FaultControls {
  setLatency(latency: LatencyFault | null): void;
  setRateLimit(rateLimit: RateLimitFault | null): void;
  setErrorRate(errorRate: ErrorRateFault | null): void;
  /** `forMs` ends the outage by itself: the only way out of a `refuse` outage for a client of the control API on the same port. */
  setOutage(outage: OutageMode | (OutageFault & { forMs?: number }) | null): Promise<void>;
  setPatchSupported(supported: boolean): void;
  setLostResponseFraction(fraction: number): void;
  /** Replaces every setting at once, as `PUT /__control/faults` does. */
  apply(settings: FaultSettings & { outage?: OutageFault & { forMs?: number } }): Promise<void>;
  current(): FaultSettings;
  /** Restarts the fault generator, so a run can be replayed. */
  reseed(seed: number): void;
  /** Switches every fault off (and listens again after a `refuse` outage). */
  reset(): Promise<void>;
}

export interface ManagedFaultControls extends FaultControls {
  /** Cancels a pending outage end; later outage changes no longer touch the listener. */
  dispose(): void;
}

type OutageSetting = Parameters<FaultControls['setOutage']>[0];

/** The outage fault, which alone reaches beyond the plan: `refuse` closes the listener. */
class OutageSwitch {
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(
    private readonly plan: FaultPlan,
    private readonly listener: Listener,
  ) {}

  async set(outage: OutageSetting): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.disposed) return;
    if (outage === null) {
      this.plan.set('outage', undefined);
      await this.listener.start();
      return;
    }
    const { forMs, ...fault }: OutageFault & { forMs?: number } =
      typeof outage === 'string' ? { mode: outage } : outage;
    this.plan.set('outage', fault);
    if (fault.mode === 'refuse') await this.listener.stop();
    else await this.listener.start();
    if (forMs !== undefined) {
      this.timer = setTimeout(() => void this.set(null), forMs);
      this.timer.unref();
    }
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
  }
}

export function createFaultControls(plan: FaultPlan, listener: Listener): ManagedFaultControls {
  const outage = new OutageSwitch(plan, listener);
  const controls: ManagedFaultControls = {
    setLatency: (latency) => plan.set('latency', latency ?? undefined),
    setRateLimit: (rateLimit) => plan.set('rateLimit', rateLimit ?? undefined),
    setErrorRate: (errorRate) => plan.set('errorRate', errorRate ?? undefined),
    setOutage: (setting) => outage.set(setting),
    setPatchSupported: (supported) => plan.set('patchUnsupported', supported ? undefined : true),
    setLostResponseFraction: (fraction) =>
      plan.set('lostResponseFraction', fraction > 0 ? fraction : undefined),
    apply: async (settings) => {
      const { outage: outageSetting, ...rest } = settings;
      plan.replace(rest);
      await outage.set(outageSetting ?? null);
    },
    current: () => plan.settings(),
    reseed: (seed) => plan.reseed(seed),
    reset: () => controls.apply({}),
    dispose: () => outage.dispose(),
  };
  return controls;
}
