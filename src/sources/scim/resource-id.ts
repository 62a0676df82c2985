import { identityIdProblem } from '../../domain/platform-rules.js';
import { isWellFormedText } from '../../domain/well-formed-text.js';
import { resourceNotFound } from './scim-errors.js';

/**
 * Whether a text could be an identity's id: the store takes no id that is empty, holds a control
 * character or is not well-formed Unicode, so no such id was ever issued.
 */
export function isPossibleId(id: string): boolean {
  return identityIdProblem(id) === undefined && isWellFormedText(id);
}

/**
 * The id of a request path (`/Users/{id}`, `/Groups/{id}`), checked before any Redis read: one no
 * identity can have names nothing, which is a SCIM 404 (RFC 7644 §3.12) answered at once.
 */
export function pathId(resourceType: 'User' | 'Group', id: string): string {
  if (!isPossibleId(id)) throw resourceNotFound(resourceType, id);
  return id;
}
