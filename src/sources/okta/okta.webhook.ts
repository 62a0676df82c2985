import { Router, type RequestHandler } from 'express';
import { BridgeError } from '../../domain/errors.js';
import { secretsEqual } from '../../http/auth.js';
import { rawBody } from '../../http/body.js';
import type { OktaEventJobData } from '../../queue/okta-events-job.js';
import { deliveryEvents, readOktaEvent } from './okta-event.js';
import { parseJson, rawBytes, requireEnabled } from '../webhook-http.js';

export const OKTA_VERIFICATION_HEADER = 'x-okta-verification-challenge';

export interface OktaWebhookDeps {
  /** OKTA_HOOK_SECRET: the Authorization value set on the hook in Okta; empty disables the route. */
  secret: () => string;
  /** Where events go: the okta-events queue, on a connection that fails fast. */
  producer: { enqueue(events: readonly OktaEventJobData[]): Promise<void> };
  bodyLimitBytes: number;
  /** Now in ms, which bounds event times; tests pass their own clock. */
  now?: () => number;
}

/**
 * Events in one delivery, at most: far above the handful Okta batches into one request, so only a
 * body that is not Okta's own reaches it. Over it: 400, and nothing of the delivery is enqueued.
 */
export const MAX_OKTA_EVENTS_PER_DELIVERY = 1000;

/** Ignored events named in the delivery's one summary line, at most. */
const IGNORED_SAMPLE = 5;

/**
 * `/webhooks/okta` (SPEC §5.3): Okta Event Hooks. GET answers the one-time verification; POST
 * enqueues the delivered events and answers 200 at once — the work happens in the okta-events job,
 * well inside Okta's 3-second budget. Events the bridge does not handle (other types, no target,
 * an unsuccessful outcome) are acknowledged, and summed up in one log line per delivery: Okta does
 * not retry a 4xx and would drop the rest of the delivery. Redis being down fails a delivery (503),
 * and Okta retries it. What is no delivery at all is refused: bad JSON, too many events (400).
 */
export function oktaWebhookRouter(deps: OktaWebhookDeps): Router {
  const now = deps.now ?? Date.now;
  const router = Router();
  router.use(requireEnabled(deps.secret, 'OKTA_HOOK_SECRET'));
  router.use(authorizationValue(deps.secret));
  router.get('/', (req, res, next) => {
    const challenge = req.get(OKTA_VERIFICATION_HEADER);
    if (challenge === undefined || challenge === '') {
      return next(new BridgeError('invalid_input', 'Missing X-Okta-Verification-Challenge header'));
    }
    res.json({ verification: challenge });
  });
  router.post('/', ...rawBody(deps.bodyLimitBytes), async (req, res, next) => {
    try {
      const events = deliveryEvents(parseJson(rawBytes(req)));
      if (!events) req.log?.warn('okta delivery without data.events: nothing to do');
      if (events && events.length > MAX_OKTA_EVENTS_PER_DELIVERY) {
        throw new BridgeError(
          'invalid_input',
          `A delivery holds at most ${MAX_OKTA_EVENTS_PER_DELIVERY} events; this one holds ${events.length}`,
        );
      }
      const { jobs, ignored } = readDelivery(events ?? [], now());
      if (ignored.count > 0) req.log?.info(ignored, 'okta events ignored');
      await deps.producer.enqueue(jobs);
      res.status(200).end();
    } catch (error) {
      next(error);
    }
  });
  return router;
}

interface IgnoredSummary {
  count: number;
  /** Reason → how many events it applied to. */
  reasons: Record<string, number>;
  /** The first few ignored events. */
  sample: { uuid?: string; eventType?: string; reason: string }[];
}

/** The jobs of a delivery's events, and a summary of the ones ignored (one log line, not one each). */
function readDelivery(events: readonly unknown[], now: number) {
  const jobs: OktaEventJobData[] = [];
  const ignored: IgnoredSummary = { count: 0, reasons: {}, sample: [] };
  for (const raw of events) {
    const read = readOktaEvent(raw, now);
    if (read.ok) {
      jobs.push(read.job);
      continue;
    }
    ignored.count++;
    ignored.reasons[read.reason] = (ignored.reasons[read.reason] ?? 0) + 1;
    if (ignored.sample.length < IGNORED_SAMPLE) {
      const { uuid, eventType, reason } = read;
      ignored.sample.push({ uuid: uuid?.slice(0, 64), eventType: eventType?.slice(0, 64), reason });
    }
  }
  return { jobs, ignored };
}

/** Okta sends the configured value verbatim in `Authorization` (no scheme is implied). */
function authorizationValue(secret: () => string): RequestHandler {
  return (req, _res, next) => {
    const given = req.get('authorization');
    if (given !== undefined && secretsEqual(given, secret())) return next();
    next(
      new BridgeError(
        'unauthorized',
        given === undefined ? 'Missing Authorization header' : 'Wrong Authorization value',
      ),
    );
  };
}
