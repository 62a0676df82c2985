import { request } from 'undici';
import { secretLines } from '../config/secret-lines.js';
import { MAX_EVENTS_PER_BATCH } from '../sources/events/generic-event.schema.js';
import { SIGNATURE_HEADER, signatureHeader } from '../sources/events/signature.js';
import { bridgeUrl, defaultAdminUrl, readSecretFile } from './admin-client.js';
import { CliError, notJson, requestFailed } from './cli-error.js';
import { readInputFile } from './input-file.js';

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
  /** The events' file, as error lines name it. */
  source?: string;
}

const EVENTS_FORM = 'give one event, {"events": [...]}, an array of events, or one event per line';

/** Sends the events; resolves to the exit code: 0 when every request was accepted, 1 otherwise. */
export async function sendEvents(text: string, options: SendEventOptions): Promise<number> {
  const events = readEvents(text, options.source);
  const url = eventsUrl(options.url);
  const size = Math.min(Math.max(1, options.batchSize), MAX_EVENTS_PER_BATCH);
  let failed = false;
  for (let i = 0; i < events.length; i += size) {
    const chunk = events.slice(i, i + size);
    const body = JSON.stringify(chunk.length === 1 ? chunk[0] : { events: chunk });
    // A secret in rotation holds several values, one per line: one signature for each.
    const header = signatureHeader(secretLines(options.secret), body, Math.floor(Date.now() / 1000));
    const { status, answer } = await post(url, header, body);
    options.write(`POST ${url} (${chunk.length} event${chunk.length === 1 ? '' : 's'}): ${status} ${answer}`);
    if (status >= 300) failed = true;
  }
  return failed ? 1 : 0;
}

async function post(url: URL, signature: string, body: string): Promise<{ status: number; answer: string }> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
      body,
    });
    return { status: response.statusCode, answer: await response.body.text() };
  } catch (error) {
    throw requestFailed(url.origin, error);
  }
}

/**
 * The events of a file: one event, `{"events": [...]}`, an array, or one event per line. A file
 * whose first line is not JSON either is reported as one JSON text, with the position of its error.
 */
export function readEvents(text: string, source = 'the input'): unknown[] {
  const whole = parseJson(text);
  if (whole.ok) {
    const parsed = whole.value;
    if (Array.isArray(parsed)) return parsed as unknown[];
    if (typeof parsed === 'object' && parsed !== null && 'events' in parsed && Array.isArray(parsed.events)) {
      return parsed.events as unknown[];
    }
    return [parsed];
  }
  const events: unknown[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const parsed = parseJson(line);
    if (!parsed.ok) {
      throw events.length === 0
        ? notJson(source, text, EVENTS_FORM)
        : notJson(source, line, EVENTS_FORM, index + 1);
    }
    events.push(parsed.value);
  }
  return events;
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

function eventsUrl(base: string): URL {
  const url = bridgeUrl(base);
  if (!url.pathname.endsWith('/webhooks/events')) {
    url.pathname = `${url.pathname.replace(/\/+$/, '')}/webhooks/events`;
  }
  return url;
}

/** The CLI edge: reads FILE and the secret (WEBHOOK_SECRET or WEBHOOK_SECRET_FILE); the exit code. */
export async function sendEventCommand(
  file: string,
  cli: { url?: string; batchSize: number },
): Promise<number> {
  const secret = webhookSecret();
  const text = readInputFile(file);
  const url = cli.url ?? process.env.BRIDGE_URL ?? defaultAdminUrl();
  const write = (line: string) => process.stdout.write(`${line}\n`);
  const source = file === '-' ? 'stdin' : file;
  return sendEvents(text, { url, secret, batchSize: cli.batchSize, write, source });
}

function webhookSecret(): string {
  const file = process.env.WEBHOOK_SECRET_FILE;
  const secret = file
    ? readSecretFile('WEBHOOK_SECRET_FILE', file).replace(/\r?\n$/, '')
    : process.env.WEBHOOK_SECRET;
  if (!secret) {
    throw new CliError(
      'setting_missing',
      file ? `WEBHOOK_SECRET_FILE ${file} is empty` : 'WEBHOOK_SECRET is not set',
      "set WEBHOOK_SECRET (or WEBHOOK_SECRET_FILE) to the bridge's webhook secret",
    );
  }
  return secret;
}
