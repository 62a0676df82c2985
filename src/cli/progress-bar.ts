/**
 * A one-line progress bar on a terminal (phase, done/total, rate); on anything else a line every few
 * seconds, so logs of CI jobs stay readable.
 */
export class ProgressBar {
  private lastLine = 0;
  private lastDone = 0;
  private lastAt = Date.now();
  private rate = 0;
  private drawn = false;

  constructor(private readonly out: NodeJS.WriteStream = process.stderr) {}

  update(phase: string, done: number, total: number): void {
    const now = Date.now();
    if (now - this.lastAt >= 500) {
      this.rate = ((done - this.lastDone) * 1000) / (now - this.lastAt);
      this.lastDone = done;
      this.lastAt = now;
    }
    const ratio = total > 0 ? Math.min(done / total, 1) : 0;
    const width = 30;
    const filled = Math.round(ratio * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    const rate = this.rate > 0 ? `  ${this.rate.toFixed(0)}/s` : '';
    const text = `${bar} ${phase.padEnd(17)} ${done}/${total}${rate}`;
    if (this.out.isTTY) {
      this.out.write(`\r${text}\x1b[K`);
      this.drawn = true;
    } else if (now - this.lastLine > 3000) {
      this.out.write(`${text}\n`);
      this.lastLine = now;
    }
  }

  /** Ends the bar's line on a terminal, if it drew one. */
  done(): void {
    if (this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
