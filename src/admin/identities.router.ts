import { Router } from 'express';
import { BridgeError } from '../domain/errors.js';
import type { IdentityKind } from '../domain/identity.js';
import type { IdentityNameQueries } from '../store/identity-names.queries.js';
import type { IdentityTraceQueries } from '../store/identity-trace.queries.js';
import { parseInput } from './admin-input.js';
import { relatedNames } from './related-names.js';
import { IdentityParams } from './schemas/identity.schema.js';
import { identityView } from './views.js';

export interface AdminIdentitiesDeps {
  traces: IdentityTraceQueries;
  /** Names a user's groups and a group's members beside their ids. */
  names?: IdentityNameQueries;
}

const KIND: Record<'users' | 'groups', IdentityKind> = { users: 'user', groups: 'group' };

/**
 * GET /admin/identities/{users|groups}/{key}: one identity's trace — desired state, target id,
 * managed or not, last applied, last error with the target's SCIM detail, and its history. The key
 * is the source id, or the userName (users) / displayName (groups), case-insensitively.
 */
export function adminIdentitiesRouter(deps: AdminIdentitiesDeps): Router {
  const router = Router();
  router.get('/identities/:kind/:key', async (req, res) => {
    const { kind, key } = parseInput(IdentityParams, req.params, 'path');
    const trace = await deps.traces.trace(KIND[kind], key);
    if (!trace) throw new BridgeError('not_found', `No ${KIND[kind]} with id or name ${JSON.stringify(key)}`);
    res.json(identityView(trace, await relatedNames(deps.names, trace)));
  });
  return router;
}
