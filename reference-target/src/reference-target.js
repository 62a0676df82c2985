import { BridgeError } from '../../src/domain/errors.js';
import { createLogger } from '../../src/ops/logger.js';
import { BearerToken } from './bearer-auth.js';
import { createFaultControls } from './fault-controls.js';
import { FaultPlan } from './faults.js';
import { Listener } from './listener.js';
import { Recorder } from './recorder.js';
import { ResourceStore } from './resource-store.js';
import { CONTROL_BASE_PATH, SCIM_BASE_PATH, buildTargetApp } from './target-app.js';
import { createTargetState } from './target-state.js';
const DEFAULTS = {
    host: '127.0.0.1',
    port: 0,
    pageCap: 100,
    bodyLimitBytes: 1024 * 1024,
    maxRecordedRequests: 1_000_000,
};
export async function startReferenceTarget(options) {
    const settings = { ...DEFAULTS, ...withoutUndefined(options), token: options.token };
    checkOptions(settings);
    const parts = assemble(settings);
    await parts.listener.start();
    parts.base.url = `http://${urlHost(settings.host)}:${parts.listener.port}`;
    const controlListener = await startControlListener(settings, parts.control);
    const controlBase = controlListener === undefined
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
function assemble(settings) {
    const base = { url: '' };
    const scimUrl = () => `${base.url}${SCIM_BASE_PATH}`;
    const recorder = new Recorder(settings.maxRecordedRequests);
    const plan = new FaultPlan(settings.seed);
    if (settings.latencyMs !== undefined && settings.latencyMs > 0)
        plan.set('latency', { ms: settings.latencyMs });
    const scimToken = new BearerToken(settings.token);
    const store = new ResourceStore(scimUrl);
    const logger = settings.logger ?? (settings.log === true ? requestLogger(settings.token) : undefined);
    // The handler runs only once the listener has started, by which time `app` exists.
    const listener = new Listener((req, res) => app(req, res), settings.host, settings.port);
    const faults = createFaultControls(plan, listener);
    const controlToken = new BearerToken(settings.token);
    const control = {
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
function requestLogger(token) {
    return createLogger({ level: 'info', pretty: false, secrets: [token] });
}
async function startControlListener(settings, control) {
    if (settings.controlPort === undefined)
        return undefined;
    const app = buildTargetApp({ control });
    const listener = new Listener((req, res) => app(req, res), settings.host, settings.controlPort);
    await listener.start();
    return listener;
}
function checkOptions(options) {
    const problems = [];
    if (typeof options.token !== 'string' || options.token === '')
        problems.push('token: must be a non-empty string');
    if (!Number.isInteger(options.pageCap) || options.pageCap < 1)
        problems.push('pageCap: must be an integer of at least 1');
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535)
        problems.push('port: must be 0-65535');
    if (problems.length > 0)
        throw new BridgeError('invalid_input', `Invalid reference target options: ${problems.join('; ')}`, {
            problems,
        });
}
/** An IP literal as it goes into a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host) {
    if (host === '0.0.0.0' || host === '')
        return '127.0.0.1';
    if (host === '::')
        return '[::1]';
    return host.includes(':') ? `[${host}]` : host;
}
function withoutUndefined(value) {
    return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined));
}
//# sourceMappingURL=reference-target.js.map