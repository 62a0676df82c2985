import { BridgeError } from '../../domain/errors.js';
import { capitalized } from '../api-errors.js';

/**
 * A pager's guard against a server that sends it round in circles (a next link, page token or
 * start index it gave before): the read stops with `source_invalid` instead of never ending.
 */
export class PageGuard {
  private readonly seen = new Set<string>();

  constructor(
    private readonly label: string,
    private readonly route: string,
  ) {}

  /** Notes a cursor about to be followed; throws when it came before. */
  next(cursor: string, what: string): void {
    if (this.seen.has(cursor)) throw this.invalid(`${what} repeats one already followed`);
    this.seen.add(cursor);
  }

  invalid(reason: string): BridgeError {
    return new BridgeError('source_invalid', `${capitalized(this.label)} ${this.route}: ${reason}`);
  }
}
