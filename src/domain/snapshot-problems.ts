/**
 * Problems of an invalid input as `path: reason` lines (e.g. `users[3].userName: required`). Only
 * the first `limit` are kept (formatting is the costly part when 100,000 items are wrong); the total
 * is always exact, and a last line says how many there were when some were left out.
 */

export type ProblemPath = readonly PropertyKey[];

export const MAX_LISTED_PROBLEMS = 100;

export class ProblemList {
  private readonly lines: string[] = [];
  private count = 0;

  constructor(private readonly limit = MAX_LISTED_PROBLEMS) {}

  get total(): number {
    return this.count;
  }

  add(path: ProblemPath, reason: string): void {
    this.addFormatted(() => `${formatPath(path)}: ${reason}`);
  }

  /** A problem whose line is only formatted when it is among those kept. */
  addFormatted(line: () => string): void {
    this.count++;
    if (this.lines.length < this.limit) this.lines.push(line());
  }

  /** The kept lines, plus the closing count line when some were left out. */
  list(): string[] {
    if (this.count <= this.lines.length) return [...this.lines];
    const more = this.count - this.lines.length;
    return [...this.lines, `… and ${more} more (${this.count} problems in total)`];
  }
}

/** `['users', 3, 'name', 'givenName']` → `users[3].name.givenName`; the root is `snapshot`. */
export function formatPath(path: ProblemPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out === '' ? 'snapshot' : out;
}

/** `users[3]` + `['name', 'givenName']` → `users[3].name.givenName`. */
export function formatItemPath(head: string, rest: ProblemPath): string {
  const tail = formatPath(['_', ...rest]);
  return head + tail.slice(1);
}

/** A value quoted for a problem line, shortened when long. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}
