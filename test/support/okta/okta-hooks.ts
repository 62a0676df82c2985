import { randomUUID } from 'node:crypto';
import type { LogEvent } from './okta-log-events.js';

/**
 * Event Hook delivery as Okta documents it: a POST of `{ "data": { "events": [...] } }` (with the
 * CloudEvents-style envelope) to the hook's URL, the configured `Authorization` value sent as is;
 * Okta waits 3 seconds for an answer; a delivery that times out or fails with a 5xx or a network
 * error is tried once more, one answered with anything below 500 is not; after that the events are
 * never sent again (they stay in the System Log).
 */

export interface HookSettings {
  url: string;
  authorization: string;
  /** Pause before the one retry (Okta's is not specified; short in tests). */
  retryDelayMs?: number;
}

export interface Delivery {
  uuids: string[];
  /** One entry per try: the status answered, or the error. */
  tries: (number | string)[];
  delivered: boolean;
}

const TIMEOUT_MS = 3000;

export class OktaHooks {
  private settings: HookSettings | undefined;
  private readonly pending = new Set<Promise<void>>();
  readonly deliveries: Delivery[] = [];

  configure(settings: HookSettings | undefined): void {
    this.settings = settings;
  }

  deliver(events: readonly LogEvent[]): void {
    const settings = this.settings;
    if (!settings || events.length === 0) return;
    const delivery: Delivery = { uuids: events.map((e) => e.uuid), tries: [], delivered: false };
    this.deliveries.push(delivery);
    const run = this.send(settings, events, delivery).finally(() => this.pending.delete(run));
    this.pending.add(run);
  }

  /** Resolves once every delivery begun so far has finished (delivered or given up). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async send(settings: HookSettings, events: readonly LogEvent[], delivery: Delivery) {
    const body = JSON.stringify(envelope(events));
    for (let attempt = 0; attempt < 2; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, settings.retryDelayMs ?? 50));
      const outcome = await post(settings, body);
      delivery.tries.push(outcome);
      if (typeof outcome === 'number' && outcome < 300) {
        delivery.delivered = true;
        return;
      }
      if (typeof outcome === 'number' && outcome < 500) return;
    }
  }
}

async function post(settings: HookSettings, body: string): Promise<number | string> {
  try {
    const response = await fetch(settings.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        authorization: settings.authorization,
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return response.status;
  } catch (error) {
    return error instanceof Error ? error.name : 'error';
  }
}

function envelope(events: readonly LogEvent[]) {
  const now = new Date().toISOString();
  return {
    eventType: 'com.okta.event_hook',
    eventTypeVersion: '1.0',
    cloudEventsVersion: '0.1',
    source: 'https://okta-emulation.example/api/v1/eventHooks/whoemulation0000001',
    eventId: randomUUID(),
    data: { events },
    eventTime: now,
    contentType: 'application/json',
  };
}
