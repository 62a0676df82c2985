import { describe, expect, it } from 'vitest';
import {
  computeSignature,
  parseSignatureHeader,
  signatureHeader,
  verifySignature,
} from '../../src/sources/events/signature.js';

// Pure: the signature of generic events (SPEC §5.2), with the clock passed in.
describe('X-Bridge-Signature', () => {
  const secret = 'webhook-secret-0123456789';
  const body = Buffer.from('{"id":"e-1","type":"user.deleted","data":{"id":"u-1"}}');
  const t = 1_700_000_000;
  const now = t * 1000;

  it('accepts a good signature and documents the digest: HMAC-SHA256 of "<t>.<body>" in hex', () => {
    expect(computeSignature(secret, t, body)).toMatch(/^[0-9a-f]{64}$/);
    expect(verifySignature(signatureHeader(secret, body, t), body, { secret, now })).toEqual({ ok: true });
  });

  it('refuses a signature made with another secret', () => {
    const header = signatureHeader('another-secret-0123456789', body, t);
    expect(verifySignature(header, body, { secret, now })).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('refuses a body altered by one byte', () => {
    const header = signatureHeader(secret, body, t);
    for (const index of [0, body.length >> 1, body.length - 1]) {
      const altered = Buffer.from(body);
      altered[index] = (altered[index] ?? 0) ^ 0x01;
      expect(verifySignature(header, altered, { secret, now })).toEqual({ ok: false, problem: 'mismatch' });
    }
  });

  it('refuses a timestamp more than 300 s old or ahead, and accepts one at the edge', () => {
    const stale = signatureHeader(secret, body, t - 301);
    const future = signatureHeader(secret, body, t + 301);
    expect(verifySignature(stale, body, { secret, now })).toEqual({ ok: false, problem: 'stale' });
    expect(verifySignature(future, body, { secret, now })).toEqual({ ok: false, problem: 'future' });
    expect(verifySignature(signatureHeader(secret, body, t - 300), body, { secret, now }).ok).toBe(true);
    expect(verifySignature(signatureHeader(secret, body, t + 300), body, { secret, now }).ok).toBe(true);
  });

  it('refuses a timestamp that was changed after signing', () => {
    const header = signatureHeader(secret, body, t).replace(`t=${t}`, `t=${t + 1}`);
    expect(verifySignature(header, body, { secret, now })).toEqual({ ok: false, problem: 'mismatch' });
  });

  it('accepts any of several v1 signatures (secret rotation), in any position', () => {
    const rotated = signatureHeader(['old-secret-0123456789', secret], body, t);
    expect(rotated.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(rotated, body, { secret, now }).ok).toBe(true);
    const reversed = signatureHeader([secret, 'old-secret-0123456789'], body, t);
    expect(verifySignature(reversed, body, { secret, now }).ok).toBe(true);
    expect(verifySignature(rotated, body, { secret: 'third-secret-0123456789', now }).ok).toBe(false);
  });

  it('refuses a missing or malformed header', () => {
    const v1 = computeSignature(secret, t, body);
    expect(verifySignature(undefined, body, { secret, now })).toEqual({ ok: false, problem: 'missing' });
    expect(verifySignature('', body, { secret, now })).toEqual({ ok: false, problem: 'missing' });
    for (const header of [`v1=${v1}`, `t=${t}`, `t=abc,v1=${v1}`, `t=${t},t=${t},v1=${v1}`, 'garbage']) {
      expect(verifySignature(header, body, { secret, now })).toEqual({ ok: false, problem: 'malformed' });
    }
    expect(verifySignature(`t=${t},v1=xyz`, body, { secret, now })).toEqual({
      ok: false,
      problem: 'mismatch',
    });
  });

  it('parses spaces, upper-case hex and ignores other schemes', () => {
    const v1 = computeSignature(secret, t, body);
    const header = ` t=${t} , v0=abc, v1=${v1.toUpperCase()} `;
    expect(parseSignatureHeader(header)).toEqual({ timestamp: t, signatures: [v1] });
    expect(verifySignature(header, body, { secret, now }).ok).toBe(true);
  });
});
