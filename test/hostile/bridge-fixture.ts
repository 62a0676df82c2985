import request from 'supertest';
import type { ReferenceTarget } from 'scim-reference-target';
import type { Env } from '../../src/config/load-config.js';
import { signatureHeader } from '../../src/sources/events/signature.js';
import { startEngine, startTarget, type EngineFixture } from '../support/engine.js';
import { logSink, type LogSink } from '../support/log-sink.js';

/**
 * A whole bridge for hostile requests: real wiring from main.ts (Redis under a fresh prefix, BullMQ,
 * the workers, the HTTP listener on port 0) against the reference target over HTTP, with every
 * inbound route enabled and its logs captured as the JSON lines pino writes.
 */

export const ADMIN_TOKEN = 'hostile-admin-token-0123456789';
export const SCIM_TOKEN = 'hostile-scim-token-0123456789';
export const WEBHOOK_SECRET = 'hostile-webhook-secret-01234567';
export const OKTA_SECRET = 'hostile-okta-secret-0123456789';
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';

export interface HostileBridge {
  target: ReferenceTarget;
  engine: EngineFixture;
  logs: LogSink;
  http(): ReturnType<typeof request>;
  admin(method: 'get' | 'post' | 'delete', path: string): request.Test;
  /** POSTs a signed body (string: sent as is) to /webhooks/events. */
  signed(body: unknown, contentType?: string): request.Test;
  okta(body: unknown, contentType?: string): request.Test;
  scim(method: 'get' | 'post' | 'put' | 'patch', path: string): request.Test;
  close(): Promise<void>;
}

export async function startHostileBridge(env: Env = {}): Promise<HostileBridge> {
  const target = await startTarget();
  const logs = logSink([], 'info');
  const engine = await startEngine(
    target,
    {
      ADMIN_TOKEN,
      INBOUND_SCIM_TOKEN: SCIM_TOKEN,
      WEBHOOK_SECRET,
      OKTA_HOOK_SECRET: OKTA_SECRET,
      ...env,
    },
    { logger: logs.logger },
  );
  const http = () => request(engine.bridge.http.server);
  return {
    target,
    engine,
    logs,
    http,
    admin: (method, path) => http()[method](path).set('Authorization', `Bearer ${ADMIN_TOKEN}`),
    signed: (body, contentType = 'application/json') => {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const t = Math.floor(Date.now() / 1000);
      return http()
        .post('/webhooks/events')
        .set('Content-Type', contentType)
        .set('X-Bridge-Signature', signatureHeader(WEBHOOK_SECRET, raw, t))
        .send(raw);
    },
    okta: (body, contentType = 'application/json') =>
      http()
        .post('/webhooks/okta')
        .set('Authorization', OKTA_SECRET)
        .set('Content-Type', contentType)
        .send(typeof body === 'string' ? body : JSON.stringify(body)),
    scim: (method, path) => http()[method](`/scim/v2${path}`).set('Authorization', `Bearer ${SCIM_TOKEN}`),
    close: async () => {
      await engine.close();
      await target.close();
    },
  };
}

/** A generic `user.upserted` event. */
export function userEvent(eventId: string, userId: string, data: Record<string, unknown> = {}) {
  return {
    id: eventId,
    type: 'user.upserted',
    data: { id: userId, userName: `${userId}@example.com`, ...data },
  };
}

/** A fresh id for one test's identities and events. */
export function fresh(label: string): string {
  return `${label}-${Math.random().toString(36).slice(2, 10)}`;
}

/** A userName holding a lone UTF-16 surrogate: JSON.stringify writes it as the escape `\ud800`. */
export const LONE_SURROGATE_NAME = 'pb\ud800';
