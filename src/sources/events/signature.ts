import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretLines } from '../../config/secret-lines.js';

/**
 * The signature of generic events (SPEC §5.2): `X-Bridge-Signature: t=<unix seconds>,v1=<hex>`,
 * where `<hex>` is HMAC-SHA256 over `"<t>.<raw body>"` keyed with WEBHOOK_SECRET. A sender rotating
 * its secret sends one `v1=` per secret it holds; any of them matching ours is enough.
 */

export const SIGNATURE_HEADER = 'x-bridge-signature';

/** How far `t` may be from our clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export type SignatureProblem = 'missing' | 'malformed' | 'stale' | 'future' | 'mismatch';

export type SignatureCheck = { ok: true } | { ok: false; problem: SignatureProblem };

export interface ParsedSignature {
  timestamp: number;
  signatures: string[];
}

export interface VerifyOptions {
  secret: string;
  /** Now, in milliseconds. */
  now: number;
  toleranceSeconds?: number;
}

const SIGNATURE_MESSAGES: Record<SignatureProblem, string> = {
  missing: 'Missing X-Bridge-Signature header',
  malformed: 'Malformed X-Bridge-Signature header: expected t=<unix seconds>,v1=<hex HMAC-SHA256>',
  stale: `The signature's timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s old`,
  future: `The signature's timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s in the future`,
  mismatch: 'The signature does not match the body',
};

export function signatureMessage(problem: SignatureProblem): string {
  return SIGNATURE_MESSAGES[problem];
}

/** The hex HMAC-SHA256 of `"<t>.<body>"`. */
export function computeSignature(secret: string, timestamp: number, body: Buffer | string): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The header value a sender puts on a body: one `v1=` per secret given (rotation). */
export function signatureHeader(
  secrets: string | readonly string[],
  body: Buffer | string,
  timestamp: number,
): string {
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  return [`t=${timestamp}`, ...list.map((s) => `v1=${computeSignature(s, timestamp, body)}`)].join(',');
}

/** Parses `t=…,v1=…[,v1=…]`; unknown schemes (v0=, v2=…) are ignored, as a newer sender may add them. */
export function parseSignatureHeader(header: string): ParsedSignature | undefined {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 1) return undefined;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) return undefined;
      timestamp = Number(value);
    } else if (key === 'v1') {
      signatures.push(value.toLowerCase());
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/**
 * The checks that need only the header (presence, form, timestamp window), so that a request that
 * cannot succeed is refused before its body is read.
 */
export function checkSignatureHeader(
  header: string | undefined,
  options: Omit<VerifyOptions, 'secret'>,
): { ok: true; parsed: ParsedSignature } | { ok: false; problem: SignatureProblem } {
  if (header === undefined || header.trim() === '') return { ok: false, problem: 'missing' };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, problem: 'malformed' };
  const skew = Math.floor(options.now / 1000) - parsed.timestamp;
  const tolerance = options.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS;
  if (skew > tolerance) return { ok: false, problem: 'stale' };
  if (skew < -tolerance) return { ok: false, problem: 'future' };
  return { ok: true, parsed };
}

/** Checks a signature header against the raw body, comparing digests in constant time. */
export function verifySignature(
  header: string | undefined,
  body: Buffer,
  options: VerifyOptions,
): SignatureCheck {
  const head = checkSignatureHeader(header, options);
  if (!head.ok) return head;
  const { timestamp, signatures } = head.parsed;
  // The configured value may hold several secrets, one per line (a rotation on the bridge's side).
  const expected = secretLines(options.secret).map((secret) =>
    Buffer.from(computeSignature(secret, timestamp, body), 'hex'),
  );
  let matched = false;
  for (const candidate of signatures) {
    if (!/^[0-9a-f]{64}$/.test(candidate)) continue;
    // Every candidate is compared, so the time taken does not tell which one matched.
    const given = Buffer.from(candidate, 'hex');
    for (const digest of expected) if (timingSafeEqual(given, digest)) matched = true;
  }
  return matched ? { ok: true } : { ok: false, problem: 'mismatch' };
}
