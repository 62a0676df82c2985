import { readFileSync } from 'node:fs';
import { secretLines } from '../config/secret-lines.js';
import { MAX_EVENTS_PER_BATCH } from '../sources/webhooks/events/generic-event.schema.js';
import { SIGNATURE_HEADER, signatureHeader } from '../sources/webhooks/events/signature.js';

/**
 * `scim-bridge send-event FILE`: signs generic events the way a sender must (SPEC §5.2) and posts
 * them to a bridge, to test an installation. FILE ('-' for stdin) holds one event, `{"events": [...]}`,
 * a JSON array of events, or one event per line; more than 1,000 events go in several requests.
 */

export interface SendEventOptions {
  /** The bridge's base URL or the full /webhooks/events URL. */
  url: string;
  secret: string;
  batchSize: number;
  /** Where progress lines go. */
  write: (line: string) => void;
}

/** Sends the events; resolves to the exit code: 0 when every request was accepted, 1 otherwise. */
export async function sendEvents(text: string, options: SendEventOptions): Promise<number> {
  const events = readEvents(text);
  const url = eventsUrl(options.url);
  const size = Math.min(Math.max(1, options.batchSize), MAX_EVENTS_PER_BATCH);
  let failed = false;
  for (let i = 0; i < events.length; i += size) {
    const chunk = events.slice(i, i + size);
    const body = JSON.stringify(chunk.length === 1 ? chunk[0] : { events: chunk });
    // A secret in rotation holds several values, one per line: one signature for each.
    const header = signatureHeader(secretLines(options.secret), body, Math.floor(Date.now() / 1000));
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: header },
      body,
    });
    const answer = await response.text();
    options.write(
      `POST ${url} (${chunk.length} event${chunk.length === 1 ? '' : 's'}): ${response.status} ${answer}`,
    );
    if (!response.ok) failed = true;
  }
  return failed ? 1 : 0;
}

export function readEvents(text: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line, index) => parseLine(line, index + 1));
  }
  if (Array.isArray(parsed)) return parsed as unknown[];
  if (typeof parsed === 'object' && parsed !== null && 'events' in parsed && Array.isArray(parsed.events)) {
    return parsed.events as unknown[];
  }
  return [parsed];
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(
      `line ${number} is not JSON: expected one event, {"events": [...]} or one event per line`,
    );
  }
}

function eventsUrl(base: string): string {
  const url = new URL(base);
  if (!url.pathname.endsWith('/webhooks/events')) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/webhooks/events`;
  }
  return url.toString();
}

/** The CLI edge: reads FILE and the secret (WEBHOOK_SECRET or WEBHOOK_SECRET_FILE), sets the exit code. */
export async function sendEventCommand(
  file: string,
  cli: { url?: string; batchSize: number },
): Promise<void> {
  try {
    const secret = webhookSecret();
    const text = readFileSync(file === '-' ? 0 : file, 'utf8');
    const url = cli.url ?? process.env.BRIDGE_URL ?? `http://127.0.0.1:${process.env.PORT ?? '8080'}`;
    const write = (line: string) => process.stdout.write(`${line}\n`);
    process.exitCode = await sendEvents(text, { url, secret, batchSize: cli.batchSize, write });
  } catch (error) {
    process.stderr.write(
      `scim-bridge send-event: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}

function webhookSecret(): string {
  const file = process.env.WEBHOOK_SECRET_FILE;
  const secret = file ? readFileSync(file, 'utf8').replace(/\r?\n$/, '') : process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error("set WEBHOOK_SECRET (or WEBHOOK_SECRET_FILE) to the bridge's secret");
  return secret;
}
