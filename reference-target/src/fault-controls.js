/** The outage fault, which alone reaches beyond the plan: `refuse` closes the listener. */
class OutageSwitch {
    plan;
    listener;
    timer;
    disposed = false;
    constructor(plan, listener) {
        this.plan = plan;
        this.listener = listener;
    }
    async set(outage) {
        clearTimeout(this.timer);
        this.timer = undefined;
        if (this.disposed)
            return;
        if (outage === null) {
            this.plan.set('outage', undefined);
            await this.listener.start();
            return;
        }
        const { forMs, ...fault } = typeof outage === 'string' ? { mode: outage } : outage;
        this.plan.set('outage', fault);
        if (fault.mode === 'refuse')
            await this.listener.stop();
        else
            await this.listener.start();
        if (forMs !== undefined) {
            this.timer = setTimeout(() => void this.set(null), forMs);
            this.timer.unref();
        }
    }
    dispose() {
        this.disposed = true;
        clearTimeout(this.timer);
    }
}
export function createFaultControls(plan, listener) {
    const outage = new OutageSwitch(plan, listener);
    const controls = {
        setLatency: (latency) => plan.set('latency', latency ?? undefined),
        setRateLimit: (rateLimit) => plan.set('rateLimit', rateLimit ?? undefined),
        setErrorRate: (errorRate) => plan.set('errorRate', errorRate ?? undefined),
        setOutage: (setting) => outage.set(setting),
        setPatchSupported: (supported) => plan.set('patchUnsupported', supported ? undefined : true),
        setLostResponseFraction: (fraction) => plan.set('lostResponseFraction', fraction > 0 ? fraction : undefined),
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
//# sourceMappingURL=fault-controls.js.map