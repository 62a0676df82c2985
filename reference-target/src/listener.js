import { createServer } from 'node:http';
/**
 * One HTTP listener that can stop — closing the port and dropping open connections, so clients see
 * ECONNREFUSED and resets — and start again on the same port (the `refuse` outage).
 */
export class Listener {
    handler;
    host;
    server;
    boundPort;
    constructor(handler, host, port) {
        this.handler = handler;
        this.host = host;
        this.boundPort = port;
    }
    get port() {
        return this.boundPort;
    }
    get listening() {
        return this.server !== undefined;
    }
    async start() {
        if (this.server !== undefined)
            return;
        const server = createServer(this.handler);
        await listenWithRetry(server, this.boundPort, this.host);
        this.boundPort = server.address().port;
        this.server = server;
    }
    /** Stops listening and destroys every connection, idle keep-alive ones and those mid-request. */
    async stop() {
        const server = this.server;
        if (server === undefined)
            return;
        this.server = undefined;
        const closed = new Promise((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
    }
}
/** Re-binding a port just released can briefly fail with EADDRINUSE; a few short retries cover it. */
async function listenWithRetry(server, port, host, attempts = 20) {
    for (let attempt = 1;; attempt += 1) {
        try {
            await new Promise((resolve, reject) => {
                server.once('error', reject);
                server.listen(port, host, () => {
                    server.off('error', reject);
                    resolve();
                });
            });
            return;
        }
        catch (error) {
            const code = error.code;
            if (code !== 'EADDRINUSE' || port === 0 || attempt >= attempts)
                throw error;
            await new Promise((resolve) => setTimeout(resolve, 50));
        }
    }
}
//# sourceMappingURL=listener.js.map