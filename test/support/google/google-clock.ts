/**
 * The time on Google's side, which the test controls: it follows the machine's clock from where it
 * was set, and `advance` moves it forward (an hour passes, three days pass) without waiting. It
 * governs what Google's servers hold — access-token lifetimes, page-token age, event times and
 * their visibility, quota minutes — while a JWT assertion's `iat`/`exp` are checked against the
 * machine's clock, the one a client signs with (so advancing Google's time does not make every
 * client look skewed).
 */
export class GoogleClock {
  private offset: number;
  private frozenAt: number | undefined;

  constructor(start = Date.now()) {
    this.offset = start - Date.now();
  }

  now(): number {
    return this.frozenAt ?? Date.now() + this.offset;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error('the emulated clock only moves forward');
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offset += ms;
  }

  /** Stops the clock where it is (a test that needs exact times); `resume` lets it run again. */
  freeze(): void {
    this.frozenAt = this.now();
  }

  resume(): void {
    if (this.frozenAt === undefined) return;
    this.offset = this.frozenAt - Date.now();
    this.frozenAt = undefined;
  }

  iso(ms = this.now()): string {
    return new Date(ms).toISOString();
  }
}

/** A small seeded PRNG (mulberry32): faults at a rate and generated ids replay from their seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
