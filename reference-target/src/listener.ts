import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * One HTTP listener that can stop — closing the port and dropping open connections, so clients see
 * ECONNREFUSED and resets — and start again on the same port (the `refuse` outage).
 */
export class Listener {
  private server: Server | undefined;
  private boundPort: number;

  constructor(
    private readonly handler: RequestListener,
    private readonly host: string,
    port: number,
  ) {
    this.boundPort = port;
  }

  get port(): number {
    return this.boundPort;
  }

  get listening(): boolean {
    return this.server !== undefined;
  }

  async start(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer(this.handler);
    await listenWithRetry(server, this.boundPort, this.host);
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and destroys every connection, idle keep-alive ones and those mid-request. */
  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}

/** Re-binding a port just released can briefly fail with EADDRINUSE; a few short retries cover it. */
async function listenWithRetry(server: Server, port: number, host: string, attempts = 20): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EADDRINUSE' || port === 0 || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
