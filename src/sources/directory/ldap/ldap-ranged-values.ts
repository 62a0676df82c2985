import type { EntryValues } from './ldap-values.js';

/**
 * Active Directory's ranged retrieval of large multi-valued attributes ([MS-ADTS] §3.1.1.3.1.3.3):
 * a group with more members than the server's MaxValRange (1,500 by default) answers
 * `member;range=0-1499` instead of `member`, and the rest is read with further base-scope reads of
 * `member;range=1500-*`, … until a range ends in `*`.
 */

export interface RangedRead {
  values: string[];
  /** Where the next range starts; undefined when every value is in. */
  next: number | undefined;
}

/** The values of `name` on the entry, plain or as a first range. */
export function readRanged(entry: EntryValues, name: string): RangedRead {
  const lower = name.toLowerCase();
  const plain = entry.text(name);
  const ranged = entry.names().find((n) => n.startsWith(`${lower};range=`));
  if (ranged === undefined) return { values: plain, next: undefined };
  return { values: [...plain, ...entry.text(ranged)], next: nextStart(ranged) };
}

/** Reads the ranges after the first, one request each, via `fetch(attribute)` of the same entry. */
export async function readRemainingRanges(
  name: string,
  start: number,
  fetch: (attribute: string) => Promise<EntryValues | undefined>,
): Promise<string[]> {
  const values: string[] = [];
  for (let next: number | undefined = start; next !== undefined;) {
    const entry = await fetch(`${name};range=${next}-*`);
    if (entry === undefined) break;
    const lower = name.toLowerCase();
    const ranged = entry.names().find((n) => n.startsWith(`${lower};range=`));
    if (ranged === undefined) break;
    values.push(...entry.text(ranged));
    const following = nextStart(ranged);
    // A range that does not move forward would loop for ever.
    next = following !== undefined && following > next ? following : undefined;
  }
  return values;
}

/** `member;range=0-1499` → 1500; `member;range=1500-*` → undefined. */
function nextStart(rangedName: string): number | undefined {
  const match = /;range=\d+-(\d+|\*)$/i.exec(rangedName);
  const end = match?.[1];
  if (end === undefined || end === '*') return undefined;
  return Number(end) + 1;
}
