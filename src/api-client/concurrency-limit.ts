/**
 * At most `limit` holders at once; the others wait in arrival order. A waiter whose signal aborts
 * leaves the line (rejecting with the signal's reason) without taking a place.
 */
export class ConcurrencyLimit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.active >= this.limit) await this.turn(signal);
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  get inFlight(): number {
    return this.active;
  }

  /** Resolves when a holder hands its place over (the place stays counted in `active`). */
  private turn(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(handOver);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(signal?.reason as Error);
      };
      const handOver = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.waiting.push(handOver);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
