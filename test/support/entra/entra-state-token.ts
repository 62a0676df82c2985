import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * The opaque state tokens of next and delta links ($skiptoken, $deltatoken; paging.md,
 * delta-query-overview.md "State tokens"). Each server seals its tokens with a key of its own
 * (AES-256-GCM), so a client can neither read nor alter one: a tampered token, or one from another
 * emulation, fails to open and is refused like Graph refuses a token it did not issue.
 */
export class StateTokens {
  private readonly key = randomBytes(32);

  seal(payload: object): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const text = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64url');
  }

  /** The payload, or undefined when the token is not one of this server's. */
  open(token: string): Record<string, unknown> | undefined {
    try {
      const raw = Buffer.from(token, 'base64url');
      if (raw.length < 29) return undefined;
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
      const value: unknown = JSON.parse(text);
      return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  }
}
