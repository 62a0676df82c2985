import type { Input } from '../../domain/input.js';
import { pushInput } from '../push-input.js';

/** Signed generic events (SPEC §5.2) as an input: owner `events`, enabled by WEBHOOK_SECRET. */
export function eventsInput(secret: () => string): Input {
  return pushInput('events', '/webhooks/events', { value: secret, setting: 'WEBHOOK_SECRET' });
}
