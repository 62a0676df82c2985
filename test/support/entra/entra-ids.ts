import { randomUUID } from 'node:crypto';

/** Entra object ids, tenant ids, app ids: lower-case GUIDs. */
export function newGuid(): string {
  return randomUUID();
}

/**
 * A deterministic GUID for fixtures: `kind` (0–0xffff) and `n` are readable in it, so a bench run
 * seeds the same ids each time and a failing id points back at the fixture row that made it.
 */
export function fixtureGuid(kind: number, n: number): string {
  const hex = n.toString(16).padStart(12, '0');
  return `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${hex}`;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isGuid(value: string): boolean {
  return GUID.test(value);
}
