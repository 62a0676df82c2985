/** Collections by lower-cased name: express routes case-insensitively, the recorder spells them one way. */
const COLLECTIONS = new Map(['Users', 'Groups', 'ResourceTypes', 'Schemas', 'ServiceProviderConfig'].map((name) => [
    name.toLowerCase(),
    name,
]));
/** The route of a path relative to the SCIM base, ids replaced by `:id`. */
export function normaliseRoute(relativePath) {
    const [first, id, ...rest] = relativePath.split('/').filter((segment) => segment !== '');
    if (first === undefined)
        return '/';
    const collection = COLLECTIONS.get(first.toLowerCase());
    if (collection === undefined || rest.length > 0)
        return '/(unknown)';
    if (id === undefined)
        return `/${collection}`;
    return collection === 'ServiceProviderConfig' ? '/(unknown)' : `/${collection}/:id`;
}
export class Recorder {
    maxRequests;
    requests = [];
    byMethod = new Map();
    byRoute = new Map();
    byStatus = new Map();
    total = 0;
    dropped = 0;
    inFlight = 0;
    maxConcurrency = 0;
    constructor(maxRequests = 1_000_000) {
        this.maxRequests = maxRequests;
    }
    /** Marks a request in flight; call the returned function once when it is over. */
    begin() {
        this.inFlight += 1;
        this.maxConcurrency = Math.max(this.maxConcurrency, this.inFlight);
        let ended = false;
        return () => {
            if (ended)
                return;
            ended = true;
            this.inFlight -= 1;
        };
    }
    record(request) {
        this.total += 1;
        increment(this.byMethod, request.method);
        increment(this.byRoute, `${request.method} ${request.route}`);
        increment(this.byStatus, String(request.status));
        if (this.requests.length < this.maxRequests)
            this.requests.push(request);
        else
            this.dropped += 1;
    }
    stats(options = {}) {
        const limit = options.limit ?? this.requests.length;
        return {
            total: this.total,
            byMethod: Object.fromEntries(this.byMethod),
            byRoute: Object.fromEntries(this.byRoute),
            byStatus: Object.fromEntries(this.byStatus),
            maxConcurrency: this.maxConcurrency,
            inFlight: this.inFlight,
            requests: limit <= 0 ? [] : this.requests.slice(-limit).map((request) => ({ ...request })),
            droppedRequests: this.dropped,
        };
    }
    /** Forgets everything recorded; requests still in flight count towards the next maxConcurrency. */
    reset() {
        this.requests = [];
        this.byMethod = new Map();
        this.byRoute = new Map();
        this.byStatus = new Map();
        this.total = 0;
        this.dropped = 0;
        this.maxConcurrency = this.inFlight;
    }
}
function increment(counts, key) {
    counts.set(key, (counts.get(key) ?? 0) + 1);
}
//# sourceMappingURL=recorder.js.map