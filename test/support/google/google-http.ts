import type { IncomingMessage, ServerResponse } from 'node:http';
import { authorize, type ApiMethod } from './google-access.js';
import type { AuditLog } from './google-audit-log.js';
import type { GoogleClock } from './google-clock.js';
import { noSuchMethod, oauthError, throttled, type Reply } from './google-errors.js';
import type { Faults } from './google-faults.js';
import type { WorkspaceModel } from './google-model.js';
import type { PageTokens } from './google-paging.js';
import type { QuotaMeter } from './google-quota.js';
import { routeOf } from './google-routes.js';
import type { TokenEndpoint } from './google-token-endpoint.js';

/**
 * One HTTP request, the way Google's front end takes it: `POST /token` to the token endpoint;
 * an API path to its method, after the access check (google-access.ts), the quota (403
 * userRateLimitExceeded over budget) and any fault due; anything else 404. Every request is
 * recorded with its status and the time on Google's clock.
 */

export interface RecordedRequest {
  method: string;
  /** Path and query. */
  path: string;
  status: number;
  /** Google's clock (ms). */
  at: number;
  api?: ApiMethod;
  /** The impersonated user's address. */
  subject?: string;
  /** Time the emulation spent on it (ms): a bench can tell its own share from the reader's. */
  took: number;
}

export interface Frontend {
  base: string;
  clock: GoogleClock;
  model: WorkspaceModel;
  log: AuditLog;
  tokenEndpoint: TokenEndpoint;
  pageTokens: PageTokens;
  faults: Faults;
  quota: QuotaMeter;
  recorded: RecordedRequest[];
}

export async function serve(frontend: Frontend, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', frontend.base);
  const method = req.method ?? 'GET';
  const body = method === 'POST' ? await readBody(req) : '';
  const started = performance.now();
  const { reply, api, subject } = answer(frontend, method, url, req, body);
  const text = JSON.stringify(reply.body);
  const took = performance.now() - started;
  const path = url.pathname + url.search;
  frontend.recorded.push({
    method,
    path,
    status: reply.status,
    at: frontend.clock.now(),
    api,
    subject,
    took,
  });
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=UTF-8',
    // Google's own time: a reader takes it for where its audit log reads start.
    date: new Date(frontend.clock.now()).toUTCString(),
    ...reply.headers,
  });
  res.end(text);
}

function answer(
  frontend: Frontend,
  method: string,
  url: URL,
  req: IncomingMessage,
  body: string,
): { reply: Reply; api?: ApiMethod; subject?: string } {
  const { tokenEndpoint, model, quota, faults, clock } = frontend;
  if (url.pathname === '/token') {
    if (method !== 'POST') return { reply: oauthError(405, 'invalid_request', 'Method not allowed') };
    return { reply: tokenEndpoint.exchange(formOf(req.headers['content-type'], body)) };
  }
  const route = routeOf(url.pathname);
  if (!route || method !== 'GET') return { reply: noSuchMethod() };
  const api = route.method;
  const grant = authorize(api, req.headers, url, tokenEndpoint, model);
  if ('status' in grant) return { reply: grant, api };
  const subject = grant.subject?.email;
  if (!quota.take(grant.projectId, subject ?? grant.clientEmail, clock.now())) {
    return { reply: throttled('userRateLimitExceeded'), api, subject };
  }
  const target = url.pathname + url.search;
  const fault = faults.before(api, target);
  if (fault) return { reply: fault, api, subject };
  const ctx = { model, log: frontend.log, clock, tokens: frontend.pageTokens };
  return { reply: faults.after(api, target, route.run(ctx, url)), api, subject };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The token request's parameters: a form (what clients send), or a JSON object. */
function formOf(contentType: string | undefined, body: string): URLSearchParams {
  if (!contentType?.includes('application/json')) return new URLSearchParams(body);
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    return new URLSearchParams(Object.entries(parsed).map(([k, v]) => [k, String(v)]));
  } catch {
    return new URLSearchParams();
  }
}
