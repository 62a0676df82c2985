import type { IdentityKey } from '../../domain/identity.js';
import { familyArgs, type Keys } from '../keys.js';
import { conflictListKeys } from './conflicts.lua.js';

/** The KEYS and the family arguments of APPLY_BATCH, in the order it reads them. */
export function applyBatchKeys(
  keys: Keys,
  batch: { forSync: boolean; owner: string; targets: readonly IdentityKey[]; eventKeys: readonly string[] },
): { keys: string[]; families: string[] } {
  const perKind = (kind: 'user' | 'group') => [
    keys.nameIndex(kind),
    keys.externalIdIndex(kind),
    keys.all(kind),
    keys.sequence(kind),
    keys.parkedNameIndex(kind),
    keys.parkedExternalIdIndex(kind),
    keys.owned(kind, batch.owner),
  ];
  const perOp = ({ kind, id }: IdentityKey) => [
    keys.identity(kind, id),
    keys.doc(kind, id),
    keys.extra(kind, id),
    keys.history(kind, id),
    ...(kind === 'group' ? [keys.members(id)] : []),
  ];
  return {
    keys: [
      batch.forSync ? keys.dirtyForSync() : keys.dirty(),
      keys.memberOf(),
      keys.emailIndex(),
      keys.owners(),
      ...conflictListKeys(keys),
      ...perKind('user'),
      ...perKind('group'),
      batch.forSync ? keys.dirty() : keys.dirtyForSync(),
      ...batch.targets.flatMap(perOp),
      ...batch.eventKeys,
      // Last: the feeder's wake-up (batches that mark P:dirty; a sync enqueues its own jobs).
      ...(batch.forSync ? [] : [keys.dirtyWake()]),
    ],
    families: [
      ...familyArgs(keys.membersFamily()),
      ...familyArgs(keys.identityFamily('user')),
      ...familyArgs(keys.identityFamily('group')),
      ...familyArgs(keys.docFamily('user')),
      ...familyArgs(keys.docFamily('group')),
      ...familyArgs(keys.ownedFamily('user')),
      ...familyArgs(keys.ownedFamily('group')),
      ...familyArgs(keys.conflictFamily()),
    ],
  };
}
