/**
 * The names of the parts of a full sync's work in Redis: keys.ts builds their keys
 * (P:sync:<syncId>:<part>) and documents each one.
 */

type K = 'u' | 'g';
export type ScratchTable = 'userdn';
export const SCRATCH_TABLES: readonly ScratchTable[] = ['userdn'];

/** The parts of a full sync's work in Redis (P:sync:<syncId>:<part>, documented in keys.ts). */
export type SyncWorkPart =
  | `src:${K}:${'ids' | 'names' | 'ext' | 'order' | 'docs'}`
  | 'src:members'
  | `src:scratch:${ScratchTable}`
  | `ls:${K}:${'r' | 'x' | 'n'}`
  | 'ls:u:clean'
  | `plan:${K}`
  | `planned:${K}`
  | `gone:${K}`
  | 'adopt'
  | 'clean:written'
  | 'matched'
  | 'removals'
  | 'park'
  | 'delta';

/** Every part, the source's first: what a sync's end deletes. */
export function syncWorkParts(): { source: SyncWorkPart[]; run: SyncWorkPart[] } {
  const both = <P extends string>(make: (k: K) => P): P[] => [make('u'), make('g')];
  return {
    source: [
      ...(['ids', 'names', 'ext', 'order', 'docs'] as const).flatMap((n) =>
        both((k) => `src:${k}:${n}` as const),
      ),
      'src:members',
      ...SCRATCH_TABLES.map((t) => `src:scratch:${t}` as const),
    ],
    run: [
      ...(['r', 'x', 'n'] as const).flatMap((n) => both((k) => `ls:${k}:${n}` as const)),
      'ls:u:clean',
      ...both((k) => `plan:${k}` as const),
      ...both((k) => `planned:${k}` as const),
      ...both((k) => `gone:${k}` as const),
      'adopt',
      'clean:written',
      'matched',
      'removals',
      'park',
      'delta',
    ],
  };
}
