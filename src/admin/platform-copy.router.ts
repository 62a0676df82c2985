import { Router } from 'express';
import { BridgeError, isBridgeError } from '../domain/errors.js';
import type { DesiredGroup, DesiredUser, IdentityKind } from '../domain/identity.js';
import { formatKey } from '../domain/identity.js';
import type { IdentityNameQueries } from '../store/identity-names.queries.js';
import type { IdentityTrace, IdentityTraceQueries } from '../store/identity-trace.queries.js';
import { redactText } from '../ops/redact.js';
import { parseInput } from './admin-input.js';
import { compareGroup, compareUser, shownResource } from './platform-copy.js';
import { IdentityParams } from './schemas/identity.schema.js';
import type { PlatformCopy } from './schemas/platform-copy.schema.js';

/** Reads one resource from the platform by its platform id; undefined when it answers 404. */
export type PlatformRead = (
  kind: IdentityKind,
  targetId: string,
) => Promise<Record<string, unknown> | undefined>;

export interface AdminPlatformCopyDeps {
  traces: IdentityTraceQueries;
  names: IdentityNameQueries;
  /** Absent in a process that cannot reach the platform: the route then says so. */
  platform?: PlatformRead;
  now: () => number;
}

const KIND: Record<'users' | 'groups', IdentityKind> = { users: 'user', groups: 'group' };

/**
 * GET /admin/identities/{users|groups}/{key}/platform: the identity as the platform holds it now,
 * read through the platform's SCIM API, beside its desired state, with the differences marked.
 * `platform` says what was found: `found`, `not-found` (the platform answers 404 for the recorded
 * id: deleted out of band, re-created by the next run if desired) or `not-linked` (the bridge has
 * no platform id for it yet: nothing is read). A platform that cannot be read is a 502 whose
 * message says why; nothing changes either way.
 */
export function adminPlatformCopyRouter(deps: AdminPlatformCopyDeps): Router {
  const router = Router();
  router.get('/identities/:kind/:key/platform', async (req, res) => {
    const { kind, key } = parseInput(IdentityParams, req.params, 'path');
    const trace = await deps.traces.trace(KIND[kind], key);
    if (!trace) throw new BridgeError('not_found', `No ${KIND[kind]} with id or name ${JSON.stringify(key)}`);
    const base = {
      kind: trace.kind,
      id: trace.id,
      key: formatKey(trace),
      targetId: trace.targetId ?? null,
      inDesiredState: trace.desired !== undefined,
    };
    const resource = trace.targetId ? await read(deps, trace.kind, trace.targetId) : undefined;
    const readAt = new Date(deps.now()).toISOString();
    if (!resource) {
      const platform = trace.targetId ? 'not-found' : 'not-linked';
      const copy: PlatformCopy = {
        ...base,
        platform,
        attributes: [],
        differences: [],
        resource: null,
        readAt,
      };
      return void res.json(copy);
    }
    const copy: PlatformCopy = {
      ...base,
      platform: 'found',
      ...(await compare(deps, trace, resource)),
      resource: shownResource(resource),
      readAt,
    };
    res.json(copy);
  });
  return router;
}

async function compare(deps: AdminPlatformCopyDeps, trace: IdentityTrace, resource: Record<string, unknown>) {
  if (trace.kind === 'user') return compareUser(trace.desired as DesiredUser | undefined, resource);
  return compareGroup(trace.desired as DesiredGroup | undefined, resource, deps.names);
}

async function read(deps: AdminPlatformCopyDeps, kind: IdentityKind, targetId: string) {
  if (!deps.platform)
    throw new BridgeError(
      'target_unavailable',
      'This process has no platform client: the platform cannot be read from here',
    );
  try {
    return await deps.platform(kind, targetId);
  } catch (error) {
    if (!isBridgeError(error) || error.side !== 'platform') throw error;
    throw new BridgeError(error.code, `The platform could not be read: ${redactText(error.message)}`, {
      ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
    });
  }
}
