import { readFileSync } from 'node:fs';
import { fileUnreadable, notJson } from './cli-error.js';

/** A file named on the command line, '-' for stdin. */
export function readInputFile(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw fileUnreadable(path === '-' ? 'stdin' : path, error);
  }
}

/** A JSON file named on the command line; `expected` says what it should hold, for the error line. */
export function readJsonFile(path: string, expected: string): unknown {
  // A byte-order mark, as some editors write, is not JSON but is no reason to refuse the file.
  const text = readInputFile(path).replace(/^\uFEFF/, '');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw notJson(path === '-' ? 'stdin' : path, text, expected);
  }
}
