import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every Prometheus metric of the bridge (SPEC §7), on a registry of its own so that several bridges
 * can live in one test process. Label values are bounded: never identity keys or user names.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly targetRequests: Counter<'method' | 'route' | 'status'>;
  readonly targetRequestDuration: Histogram<'method' | 'route'>;
  readonly queueJobs: Gauge<'queue' | 'state'>;
  readonly reconcileChanges: Counter<'kind' | 'action' | 'result'>;
  readonly inboundRequests: Counter<'source' | 'status'>;
  readonly lastFullSync: Gauge;
  readonly platformHealth: Gauge<'state'>;
  readonly failures: Gauge;
  readonly conflicts: Gauge<'kind'>;
  readonly syncDuration: Histogram<'result'>;
  readonly oktaMissedEvents: Counter;
  readonly inputLag: Gauge<'input'>;
  /** The API client's port (src/api-client/api-metrics.ts): requests to the APIs inputs read. */
  readonly sourceRequests: Counter<'input' | 'status'>;
  readonly sourceRequestDuration: Histogram<'input'>;
}

export type PlatformHealthState = 'reachable' | 'rate-limited' | 'auth-failed' | 'unavailable';
export const PLATFORM_HEALTH_STATES: readonly PlatformHealthState[] = [
  'reachable',
  'rate-limited',
  'auth-failed',
  'unavailable',
];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const metrics: Metrics = {
    registry,
    ...platformMetrics(registers),
    ...pipelineMetrics(registers),
    ...sourceMetrics(registers),
  };
  setPlatformHealth(metrics, 'reachable');
  return metrics;
}

type Registers = Registry[];

/** What the bridge sends to the platform, and the platform's health as the workers see it. */
function platformMetrics(registers: Registers) {
  return {
    targetRequests: new Counter({
      name: 'scim_bridge_target_requests_total',
      help: 'Requests sent to the platform SCIM API',
      labelNames: ['method', 'route', 'status'] as const,
      registers,
    }),
    targetRequestDuration: new Histogram({
      name: 'scim_bridge_target_request_duration_seconds',
      help: 'Duration of requests to the platform SCIM API',
      labelNames: ['method', 'route'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    platformHealth: new Gauge({
      name: 'scim_bridge_target_health',
      help: 'Target health: 1 for the current state, 0 for the others',
      labelNames: ['state'] as const,
      registers,
    }),
  };
}

/** What the bridge asks of the APIs inputs read (Okta's, an upstream SCIM server's…), per input. */
function sourceMetrics(registers: Registers) {
  return {
    sourceRequests: new Counter({
      name: 'scim_bridge_source_requests_total',
      help: 'Requests sent to the APIs inputs read, by input and status (an HTTP status or network-error)',
      labelNames: ['input', 'status'] as const,
      registers,
    }),
    sourceRequestDuration: new Histogram({
      name: 'scim_bridge_source_request_duration_seconds',
      help: 'Duration of requests to the APIs inputs read, by input',
      labelNames: ['input'] as const,
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
  };
}

/** The way in (inbound requests), through the queues, to the outcome (changes, failures, syncs). */
function pipelineMetrics(registers: Registers) {
  return {
    inboundRequests: new Counter({
      name: 'scim_bridge_inbound_requests_total',
      help: 'Requests received, by source and status',
      labelNames: ['source', 'status'] as const,
      registers,
    }),
    queueJobs: new Gauge({
      name: 'scim_bridge_queue_jobs',
      help: 'Jobs in the queues by state',
      labelNames: ['queue', 'state'] as const,
      registers,
    }),
    reconcileChanges: new Counter({
      name: 'scim_bridge_reconcile_changes_total',
      help: 'Identities reconciled, by kind, action and result',
      labelNames: ['kind', 'action', 'result'] as const,
      registers,
    }),
    failures: new Gauge({
      name: 'scim_bridge_failures',
      help: 'Identities currently in permanent failure',
      registers,
    }),
    conflicts: new Gauge({
      name: 'scim_bridge_conflicts',
      help: 'Open conflicts between inputs (identities two inputs claim), by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    lastFullSync: new Gauge({
      name: 'scim_bridge_last_full_sync_timestamp_seconds',
      help: 'Unix time of the last completed full reconciliation',
      registers,
    }),
    syncDuration: new Histogram({
      name: 'scim_bridge_sync_duration_seconds',
      help: 'Duration of full reconciliations',
      labelNames: ['result'] as const,
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers,
    }),
    oktaMissedEvents: new Counter({
      name: 'scim_bridge_okta_missed_events_total',
      help: "Okta events okta's change read (its System Log) applied before any hook did (missed hooks)",
      registers,
    }),
    inputLag: new Gauge({
      name: 'scim_bridge_input_lag_seconds',
      help: 'Seconds since a pulled input (its change reads) last read its source',
      labelNames: ['input'] as const,
      registers,
    }),
  };
}

export function setPlatformHealth(metrics: Metrics, state: PlatformHealthState): void {
  for (const s of PLATFORM_HEALTH_STATES) metrics.platformHealth.set({ state: s }, s === state ? 1 : 0);
}
