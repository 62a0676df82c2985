import { BearerToken } from './bearer-auth.js';
import type { ControlParts } from './control-router.js';
import { createFaultControls, type FaultControls } from './fault-controls.js';
import { FaultPlan } from './faults.js';
import { Listener } from './listener.js';
import { Recorder, type StatsOptions, type TargetStats } from './recorder.js';
import { createRequestLogger, type RequestLogger } from './request-log.js';
import { ResourceStore } from './resource-store.js';
import { CONTROL_BASE_PATH, SCIM_BASE_PATH, buildTargetApp } from './target-app.js';
import { createTargetState, type TargetState } from './target-state.js';

/**
 * The reference target: a real HTTP emulation of the platform's `{TARGET_URL}/api/scim/v2` that
 * enforces its documented behaviour (page-size cap, 404 Errors, 409 uniqueness) and scripts
 * faults (latency, 429, 5xx, outages, lost responses, PATCH switched off). The bridge's tests and
 * benchmarks run against it over HTTP and assert on its state and on the requests it recorded.
 */

export interface ReferenceTargetOptions {
  /** The SCIM bearer token; also the control API's token for the target's whole life. */
  token: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** Largest page a list returns (count above it is capped); ServiceProviderConfig filter.maxResults. */
  pageCap?: number;
  /** Seeds the fault generator, so that a failing run can be replayed. */
  seed?: number;
  /** Latency added to every SCIM request from the start. */
  latencyMs?: number;
  /** One JSON log line per SCIM request (to stdout), unless `logger` is given. */
  log?: boolean;
  /** Receives the line of each SCIM request instead of stdout; any pino logger will do. */
  logger?: RequestLogger;
  /** Also serve `/__control` on this port (0: a free one), which stays up during a `refuse` outage. */
  controlPort?: number;
  bodyLimitBytes?: number;
  /** Requests kept in `stats().requests`; counters stay exact beyond it. */
  maxRecordedRequests?: number;
}

export interface ReferenceTarget extends TargetState {
  /** The tenant base URL (TARGET_URL), without /api/scim/v2. */
  readonly url: string;
  /** `${url}/api/scim/v2`. */
  readonly scimUrl: string;
  readonly port: number;
  /** Base URL of the control API: on the SCIM port, or on `controlPort` when given. */
  readonly controlUrl: string;
  readonly faults: FaultControls;
  /** Switches the accepted SCIM token (a rotated or revoked token); the control API keeps the first. */
  setToken(token: string): void;
  stats(options?: StatsOptions): TargetStats;
  resetStats(): void;
  /** Stops listening and ends every connection, keep-alive ones included, at once. */
  close(): Promise<void>;
}

const DEFAULTS = {
  host: '127.0.0.1',
  port: 0,
  pageCap: 100,
  bodyLimitBytes: 1024 * 1024,
  maxRecordedRequests: 1_000_000,
};

type Settings = typeof DEFAULTS & ReferenceTargetOptions;

export async function startReferenceTarget(options: ReferenceTargetOptions): Promise<ReferenceTarget> {
  const settings: Settings = { ...DEFAULTS, ...withoutUndefined(options), token: options.token };
  checkOptions(settings);
  const parts = assemble(settings);
  await parts.listener.start();
  parts.base.url = `http://${urlHost(settings.host)}:${parts.listener.port}`;
  const controlListener = await startControlListener(settings, parts.control);
  const controlBase =
    controlListener === undefined
      ? parts.base.url
      : `http://${urlHost(settings.host)}:${controlListener.port}`;
  const { store, recorder, faults, scimToken, listener } = parts;
  return {
    ...createTargetState(store),
    url: parts.base.url,
    scimUrl: `${parts.base.url}${SCIM_BASE_PATH}`,
    port: listener.port,
    controlUrl: `${controlBase}${CONTROL_BASE_PATH}`,
    faults,
    setToken: (token) => scimToken.set(token),
    stats: (statsOptions) => recorder.stats(statsOptions),
    resetStats: () => recorder.reset(),
    close: async () => {
      faults.dispose();
      await Promise.all([listener.stop(), controlListener?.stop()]);
    },
  };
}

/** Builds every part; `base.url` is filled in once the port is known. */
function assemble(settings: Settings) {
  const base = { url: '' };
  const scimUrl = (): string => `${base.url}${SCIM_BASE_PATH}`;
  const recorder = new Recorder(settings.maxRecordedRequests);
  const plan = new FaultPlan(settings.seed);
  if (settings.latencyMs !== undefined && settings.latencyMs > 0)
    plan.set('latency', { ms: settings.latencyMs });
  const scimToken = new BearerToken(settings.token);
  const store = new ResourceStore(scimUrl);
  const logger = settings.logger ?? (settings.log === true ? createRequestLogger() : undefined);
  // The handler runs only once the listener has started, by which time `app` exists.
  const listener = new Listener((req, res) => app(req, res), settings.host, settings.port);
  const faults = createFaultControls(plan, listener);
  const controlToken = new BearerToken(settings.token);
  const control: ControlParts = {
    controlToken,
    scimToken,
    faults,
    recorder,
    store,
    scimListening: () => listener.listening,
  };
  const { pageCap, bodyLimitBytes } = settings;
  const scim = { recorder, faults: plan, token: scimToken, store, pageCap, scimUrl, bodyLimitBytes };
  const app = buildTargetApp({ scim: logger === undefined ? scim : { ...scim, logger }, control });
  return { base, recorder, scimToken, store, listener, faults, control };
}

async function startControlListener(
  settings: Settings,
  control: ControlParts,
): Promise<Listener | undefined> {
  if (settings.controlPort === undefined) return undefined;
  const app = buildTargetApp({ control });
  const listener = new Listener((req, res) => app(req, res), settings.host, settings.controlPort);
  await listener.start();
  return listener;
}

function checkOptions(options: Settings): void {
  const problems: string[] = [];
  if (typeof options.token !== 'string' || options.token === '')
    problems.push('token: must be a non-empty string');
  if (!Number.isInteger(options.pageCap) || options.pageCap < 1)
    problems.push('pageCap: must be an integer of at least 1');
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
    problems.push('port: must be 0-65535');
  if (problems.length > 0) throw new TypeError(`Invalid reference target options: ${problems.join('; ')}`);
}

/** An IP literal as it goes into a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>;
}
