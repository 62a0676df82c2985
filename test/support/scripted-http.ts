import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP server on a free port whose answers a test scripts request by request (as undici's
 * own retry tests do): the handler gets each request, numbered from 0, with its body read, and
 * answers — or breaks the connection, or holds the answer back. Every request is recorded with
 * when it arrived. Nothing of the bridge is used.
 */
export interface ScriptedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Script = (request: ScriptedRequest, res: ServerResponse, n: number) => void | Promise<void>;

export interface ScriptedServer {
  readonly url: string;
  readonly requests: ScriptedRequest[];
  /** Requests being answered right now, and the most there ever were at once. */
  readonly open: { now: number; most: number };
  script: Script;
  close(): Promise<void>;
}

export async function startScripted(script: Script): Promise<ScriptedServer> {
  const requests: ScriptedRequest[] = [];
  const open = { now: 0, most: 0 };
  const state = { script };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = {
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        body,
        at: Date.now(),
      };
      const n = requests.push(request) - 1;
      open.now++;
      open.most = Math.max(open.most, open.now);
      res.on('close', () => open.now--);
      void Promise.resolve(state.script(request, res, n)).catch((error: unknown) => {
        res.destroy(error as Error);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    open,
    get script() {
      return state.script;
    },
    set script(next: Script) {
      state.script = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers JSON with a status and headers. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
