import { createHash } from 'node:crypto';
import { abortable } from '../abortable-wait.js';
import type { AuthStrategy } from './auth-strategy.js';

/**
 * An access token kept until shortly before it expires, for the strategies that get one from a
 * token endpoint (OAuth2 client credentials, a Google service account). Concurrent requests share
 * one refresh (single flight); a token is replaced `refreshMarginMs` ahead of its expiry (at most
 * half its lifetime ahead), so a request never leaves with one about to lapse; a token the API
 * refused (401) is dropped; and when the credential it was got with changes (a secret or key
 * re-read from its file), the token goes with it. Only a fingerprint (SHA-256) of the credential
 * is kept, never the credential.
 */

export interface IssuedToken {
  accessToken: string;
  /** Its lifetime from issue (the token response's `expires_in`, RFC 6749 §5.1), in ms. */
  expiresInMs: number;
}

export interface TokenCacheOptions {
  /** How long before its expiry a token is replaced. */
  refreshMarginMs?: number;
  now?: () => number;
}

export const TOKEN_CACHE_DEFAULTS = { refreshMarginMs: 5 * 60_000 } as const;

interface Entry {
  token: string;
  credential: string;
  refreshAt: number;
}

export class TokenCache {
  private cached: Entry | undefined;
  private pending: { credential: string; promise: Promise<Entry> } | undefined;
  private readonly marginMs: number;
  private readonly now: () => number;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly credential: () => string,
    options: TokenCacheOptions = {},
  ) {
    this.marginMs = options.refreshMarginMs ?? TOKEN_CACHE_DEFAULTS.refreshMarginMs;
    this.now = options.now ?? Date.now;
  }

  /** A token fresh enough to send; a wait for the one refresh under way, or a new one. */
  async token(signal?: AbortSignal): Promise<string> {
    const credential = fingerprint(this.credential());
    const cached = this.cached;
    if (cached?.credential === credential && this.now() < cached.refreshAt) return cached.token;
    return (await abortable(this.refresh(credential), signal)).token;
  }

  /** The API refused `token`: it is not used again (a newer token that replaced it stays). */
  drop(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  private refresh(credential: string): Promise<Entry> {
    if (this.pending?.credential === credential) return this.pending.promise;
    const issuedAt = this.now();
    const promise = this.issue().then((issued) => {
      const lifetime = issued.expiresInMs;
      const refreshAt = issuedAt + lifetime - Math.min(this.marginMs, lifetime / 2);
      return { token: issued.accessToken, credential, refreshAt };
    });
    this.pending = { credential, promise };
    const settle = (entry?: Entry) => {
      if (this.pending?.promise !== promise) return;
      this.pending = undefined;
      if (entry) this.cached = entry;
    };
    promise.then(settle, () => settle());
    return promise;
  }
}

/** A strategy sending the cache's token as `Bearer` (RFC 6750 §2.1); a 401 drops it for one more try. */
export function tokenAuth(cache: TokenCache, close: () => Promise<void>): AuthStrategy {
  return {
    authorization: async (signal) => `Bearer ${await cache.token(signal)}`,
    refused: (given) => {
      cache.drop(given.replace(/^Bearer /, ''));
      return true;
    },
    close,
  };
}

function fingerprint(credential: string): string {
  return createHash('sha256').update(credential).digest('base64url');
}
