import type { Input } from '../../domain/input.js';

/** Signed generic events (SPEC §5.2) as an input: owner `events`, enabled by WEBHOOK_SECRET. */
export function eventsInput(secret: () => string): Input {
  const enabled = () => secret() !== '';
  return {
    owner: 'events',
    kind: 'events',
    push: { path: '/webhooks/events', enabled },
    health: () => (enabled() ? { state: 'ok' } : { state: 'disabled', detail: 'WEBHOOK_SECRET is unset' }),
  };
}
