import type { Router } from 'express';
import type { Config } from '../config/schema.js';
import type { DesiredStateApi } from './desired-state.api.js';
import { eventsWebhookRouter } from './events/events.webhook.js';
import { oktaWebhookRouter, type OktaWebhookDeps } from './okta/okta.webhook.js';

export interface WebhookRoutesDeps {
  config: Config;
  /** The HTTP side's DesiredStateApi (producer connection: 503 when Redis is down). */
  api: DesiredStateApi;
  /** The okta-events producer, on the same producer connection. */
  oktaProducer: OktaWebhookDeps['producer'];
  /** The secrets as they are now (re-read from their files); by default the start-up values. */
  secrets?: { webhookSecret(): string; oktaHookSecret(): string };
}

/** Both webhook routers at their paths, for buildApp's `routes`. Unset secrets answer 404. */
export function webhookRoutes(deps: WebhookRoutesDeps): { path: string; router: Router }[] {
  const { config } = deps;
  const secrets = deps.secrets ?? {
    webhookSecret: () => config.inbound.webhookSecret,
    oktaHookSecret: () => config.inbound.oktaHookSecret,
  };
  return [
    {
      path: '/webhooks/events',
      router: eventsWebhookRouter({
        secret: secrets.webhookSecret,
        api: deps.api,
        bodyLimitBytes: config.http.bodyLimitBytes,
      }),
    },
    {
      path: '/webhooks/okta',
      router: oktaWebhookRouter({
        secret: secrets.oktaHookSecret,
        producer: deps.oktaProducer,
        bodyLimitBytes: config.http.bodyLimitBytes,
      }),
    },
  ];
}
