import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AccessTokens } from './entra-access-tokens.js';
import { EntraClock } from './entra-clock.js';
import { DeltaEndpoint } from './entra-delta.js';
import { Faults, retryAfterOf, type FaultReply } from './entra-faults.js';
import { answerGraph, type GraphService } from './entra-graph-service.js';
import { newGuid } from './entra-ids.js';
import { graphError, stsError, type Reply, type RequestIds } from './entra-replies.js';
import { StateTokens } from './entra-state-token.js';
import type { EntraTenant } from './entra-tenant.js';
import { ResourceUnitBuckets } from './entra-throttle.js';
import { answerToken, type TokenEndpoint, type TokenRequest } from './entra-token-endpoint.js';

/** A request the emulation answered (no body, no header: secrets never reach the record). */
export interface EntraRequestRecord {
  host: 'login' | 'graph';
  method: string;
  /** Path with query, as sent. */
  path: string;
  status: number;
  /** Emulation clock, ms. */
  at: number;
  /** The client id the request named or its token carried. */
  app?: string;
  tenant?: string;
}

/**
 * The emulation's state and its two HTTP faces: the login host (token endpoint) and Graph. Both
 * listen on 127.0.0.1, port 0, each on its own origin — a next link is followed only on Graph's.
 */
export class EntraEmulation implements GraphService, TokenEndpoint {
  readonly clock = new EntraClock();
  readonly tokens = new AccessTokens(this.clock);
  readonly tenants = new Map<string, EntraTenant>();
  readonly faults = new Faults();
  readonly buckets = new ResourceUnitBuckets(this.clock);
  readonly stateTokens = new StateTokens();
  readonly delta = new DeltaEndpoint({
    objectsPerPage: 50,
    membersPerPage: 250,
    removedInInitialRound: true,
    tokenMaxAgeMs: 7 * 86_400_000,
  });
  readonly lists = { scanLimit: 50_000 };
  readonly log: EntraRequestRecord[] = [];
  maxAssertionLifetimeSeconds = 3_600;
  linkOrigin: string | undefined;
  loginUrl = '';
  graphUrl = '';

  tenant(segment: string): EntraTenant | undefined {
    const key = segment.toLowerCase();
    for (const tenant of this.tenants.values()) if (tenant.id === key || tenant.domain === key) return tenant;
    return undefined;
  }

  async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ids = idsOf(req);
    const request: TokenRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://login').pathname,
      contentType: req.headers['content-type'] ?? '',
      body: await readBody(req),
      ...(req.headers.authorization !== undefined ? { authorization: req.headers.authorization } : {}),
    };
    const fault = this.faults.pick('token');
    const answer = fault
      ? { reply: tokenFault(this.clock, ids, fault) }
      : this.guarded(ids, () => answerToken(this, request, ids));
    this.send(res, 'login', req, ids, answer);
  }

  graph(req: IncomingMessage, res: ServerResponse): void {
    const ids = idsOf(req);
    const url = new URL(req.url ?? '/', this.graphUrl);
    const answer = this.guarded(ids, () =>
      answerGraph(this, { method: req.method ?? 'GET', url, headers: req.headers, ids }),
    );
    req.resume();
    this.send(res, 'graph', req, ids, answer);
  }

  /** A fault of the emulation itself answers 500, named, instead of taking the test run down. */
  private guarded(ids: RequestIds, answer: () => { reply: Reply; clientId?: string; tenantId?: string }) {
    try {
      return answer();
    } catch (error) {
      const message = `The emulation failed: ${error instanceof Error ? error.message : String(error)}`;
      return { reply: graphError(this.clock, ids, 500, 'EmulationFault', message) };
    }
  }

  linkBase(): string {
    return this.linkOrigin ?? this.graphUrl;
  }

  private send(
    res: ServerResponse,
    host: 'login' | 'graph',
    req: IncomingMessage,
    ids: RequestIds,
    answer: { reply: Reply; clientId?: string; tenantId?: string },
  ): void {
    const { reply } = answer;
    this.log.push({
      host,
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      status: reply.status,
      at: this.clock.now(),
      ...(answer.clientId !== undefined ? { app: answer.clientId } : {}),
      ...(answer.tenantId !== undefined ? { tenant: answer.tenantId } : {}),
    });
    const contentType =
      host === 'graph'
        ? 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8'
        : 'application/json; charset=utf-8';
    res.writeHead(reply.status, {
      'content-type': contentType,
      'request-id': ids.requestId,
      'client-request-id': ids.clientRequestId,
      date: new Date(this.clock.now()).toUTCString(),
      ...reply.headers,
    });
    res.end(reply.body === undefined ? '' : JSON.stringify(reply.body));
  }
}

function tokenFault(clock: EntraClock, ids: RequestIds, fault: FaultReply): Reply {
  const reply = stsError(
    clock,
    ids,
    fault.status,
    'invalid_request',
    90033,
    'A transient error has occurred. Please try again.',
  );
  const retryAfter = retryAfterOf(fault);
  return retryAfter === null
    ? reply
    : { ...reply, headers: { ...reply.headers, 'retry-after': String(retryAfter) } };
}

function idsOf(req: IncomingMessage): RequestIds {
  const requestId = newGuid();
  const sent = req.headers['client-request-id'];
  return { requestId, clientRequestId: typeof sent === 'string' && sent !== '' ? sent : requestId };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 1_000_000) break;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
