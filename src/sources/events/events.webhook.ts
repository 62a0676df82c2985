import { Router, type RequestHandler } from 'express';
import { BridgeError } from '../../domain/errors.js';
import { rawBody } from '../../http/body.js';
import type { DesiredStateApi } from '../desired-state.api.js';
import { EventGroupCommit, type EventsAccepted } from './event-group-commit.js';
import { changesForEvents } from './generic-event.changes.js';
import { parseEventBatch } from './generic-event.schema.js';
import {
  SIGNATURE_HEADER,
  checkSignatureHeader,
  signatureMessage,
  verifySignature,
  type SignatureProblem,
} from './signature.js';
import { parseJson, rawBytes, requireEnabled } from '../webhook-http.js';

export interface EventsWebhookDeps {
  /** WEBHOOK_SECRET, read per request; empty disables the route (404 `not_enabled`). */
  secret: () => string;
  api: DesiredStateApi;
  /** Largest body (413 beyond it). */
  bodyLimitBytes: number;
  /** Now in ms; tests pass their own clock to check the timestamp window. */
  now?: () => number;
}

/**
 * `POST /webhooks/events` (SPEC §5.2): the signature is checked over the raw bytes before anything
 * is parsed; then every event is validated and the batch goes to the store in one atomic
 * `api.apply` (shared with requests arriving meanwhile: see EventGroupCommit), so a batch is
 * applied whole or not at all and concurrent redeliveries of an event apply it once.
 */
export function eventsWebhookRouter(deps: EventsWebhookDeps): Router {
  const now = deps.now ?? Date.now;
  const commit = new EventGroupCommit(deps.api);
  const router = Router();
  router.use(requireEnabled(deps.secret, 'WEBHOOK_SECRET'));
  router.post(
    '/',
    checkHeader(now),
    ...rawBody(deps.bodyLimitBytes),
    checkSignature(deps.secret, now),
    async (req, res, next) => {
      try {
        const result = await acceptEvents(commit, parseJson(rawBytes(req)));
        res.status(202).json(result);
      } catch (error) {
        next(error);
      }
    },
  );
  return router;
}

/** Validates and applies a parsed body; throws `invalid_input` naming every bad event. */
export async function acceptEvents(commit: EventGroupCommit, body: unknown): Promise<EventsAccepted> {
  const parsed = parseEventBatch(body);
  if (!parsed.ok) {
    throw new BridgeError('invalid_input', 'The batch was rejected: nothing was applied', {
      problems: parsed.problems,
    });
  }
  return commit.submit(changesForEvents(parsed.events));
}

function checkHeader(now: () => number): RequestHandler {
  return (req, _res, next) => {
    const check = checkSignatureHeader(req.get(SIGNATURE_HEADER), { now: now() });
    next(check.ok ? undefined : unauthorized(check.problem));
  };
}

function checkSignature(secret: () => string, now: () => number): RequestHandler {
  return (req, _res, next) => {
    const check = verifySignature(req.get(SIGNATURE_HEADER), rawBytes(req), {
      secret: secret(),
      now: now(),
    });
    next(check.ok ? undefined : unauthorized(check.problem));
  };
}

function unauthorized(problem: SignatureProblem): BridgeError {
  return new BridgeError('unauthorized', signatureMessage(problem));
}
