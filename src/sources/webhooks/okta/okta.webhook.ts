import { Router, type RequestHandler } from 'express';
import { BridgeError } from '../../../domain/errors.js';
import { secretsEqual } from '../../../http/auth.js';
import { rawBody } from '../../../http/body.js';
import type { OktaEventJobData } from '../../../queue/okta-events-job.js';
import { deliveryEvents, readOktaEvent } from './okta-event.js';
import { parseJson, rawBytes, requireEnabled } from '../webhook-http.js';

export const OKTA_VERIFICATION_HEADER = 'x-okta-verification-challenge';

export interface OktaWebhookDeps {
  /** OKTA_HOOK_SECRET: the Authorization value set on the hook in Okta; empty disables the route. */
  secret: () => string;
  /** Where events go: the okta-events queue, on a connection that fails fast. */
  producer: { enqueue(events: readonly OktaEventJobData[]): Promise<void> };
  bodyLimitBytes: number;
}

/**
 * `/webhooks/okta` (SPEC §5.3): Okta Event Hooks. GET answers the one-time verification; POST
 * enqueues the delivered events and answers 200 at once — the work happens in the okta-events job,
 * well inside Okta's 3-second budget. Events the bridge does not handle (other types, no target,
 * an unsuccessful outcome) are logged and acknowledged: Okta does not retry a 4xx and would drop
 * the rest of the delivery. Only Redis being down fails a delivery (503), and Okta retries it.
 */
export function oktaWebhookRouter(deps: OktaWebhookDeps): Router {
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
      const jobs: OktaEventJobData[] = [];
      for (const raw of events ?? []) {
        const read = readOktaEvent(raw);
        if (read.ok) jobs.push(read.job);
        else
          req.log?.info(
            { uuid: read.uuid, eventType: read.eventType, reason: read.reason },
            'okta event ignored',
          );
      }
      await deps.producer.enqueue(jobs);
      res.status(200).end();
    } catch (error) {
      next(error);
    }
  });
  return router;
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
