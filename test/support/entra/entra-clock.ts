/**
 * The emulation's clock: real time plus an offset the test moves forward. Access tokens, client
 * secrets, certificates, client assertions, delta links (7 days for directory objects,
 * delta-query-overview.md "Token duration"), the replication lag and the resource-unit buckets all
 * read it, so a test ages them by `advance` instead of waiting.
 */
export class EntraClock {
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new Error(`the emulation clock only moves forward (got ${ms})`);
    this.offset += ms;
  }

  /** Seconds since the epoch, as JWT claims carry them. */
  seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /** `2024-12-27T14:53:13` — the `date` of Graph's innerError (errors.md). */
  innerErrorDate(): string {
    return new Date(this.now()).toISOString().slice(0, 19);
  }

  /** `2024-12-27 14:53:13Z` — the `timestamp` of the token endpoint's errors (reference-error-codes.md). */
  stsTimestamp(): string {
    return `${new Date(this.now()).toISOString().slice(0, 19).replace('T', ' ')}Z`;
  }
}
