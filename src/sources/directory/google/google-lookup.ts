import type { StoredLookup } from '../../../domain/source-lookup.js';
import {
  addressesOf,
  groupNames,
  type GoogleGroup,
  type GoogleUser,
  type GroupNames,
} from './google-items.js';

/**
 * What the `google` source keeps between reads in its input's lookup table
 * (domain/source-lookup.ts): Google's audit log names users and groups by address, never by id,
 * and an address stops resolving once the user is renamed or deleted (ssosync #353), so each
 * address (primary and aliases, lower case) maps to its id — `u:<address>` for users, `g:<address>`
 * for groups — and each group's names (`gn:<id>`: address, name, aliases) let membership facts
 * name the groups above a user. A full read writes it whole; a change read adds what it re-read.
 */

export const userKey = (address: string) => `u:${address.toLowerCase()}`;
export const groupKey = (address: string) => `g:${address.toLowerCase()}`;
export const namesKey = (groupId: string) => `gn:${groupId}`;

export type Entry = readonly [string, string];

export function userEntries(user: GoogleUser): Entry[] {
  return addressesOf(user).map((address) => [userKey(address), user.id] as const);
}

export function groupEntries(group: GoogleGroup): Entry[] {
  const names = groupNames(group);
  const value = JSON.stringify({ e: names.email, n: names.name, a: names.aliases });
  return [
    ...addressesOf(group).map((address) => [groupKey(address), group.id] as const),
    [namesKey(group.id), value],
  ];
}

/** The names of these groups, as the table holds them (those it does not know are left out). */
export async function storedNames(lookup: StoredLookup, ids: readonly string[]): Promise<GroupNames[]> {
  const values = await lookup.get(ids.map(namesKey));
  return ids.flatMap((id, i) => {
    const value = values[i];
    if (value === undefined) return [];
    const { e, n, a } = JSON.parse(value) as { e: string; n: string; a: string[] };
    return [{ id, email: e, name: n, aliases: a }];
  });
}
