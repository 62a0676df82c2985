import { Router } from 'express';
import { BridgeError } from '../domain/errors.js';
import { jsonBody } from '../http/body.js';
import type {
  ProvisionRequest,
  ProvisionResult as Provisioned,
} from '../sync/provision/provision.service.js';
import { optionalBody, parseInput } from './admin-input.js';
import { ProvisionBody, ProvisionParams, type ProvisionResult } from './schemas/provision.schema.js';

export interface AdminProvisionDeps {
  /** Absent: the admin API has no platform client (provisioning needs its look-ups). */
  provision?: (request: ProvisionRequest) => Promise<Provisioned>;
  bodyLimitBytes: number;
}

/**
 * POST /admin/identities/{users|groups}/{key}/provision `{"input"?, "dryRun"?, "waitSeconds"?}`:
 * provision on demand (sync/provision/). 200 with the steps — read, scope, mapping, members,
 * match, action, and `applied` unless `dryRun`; an apply waits up to `waitSeconds` for the
 * platform to match (`applied.state: pending` after that). 404 when the source does not hold it,
 * 400 for a bad body or an input that cannot be read one identity at a time; nothing changes then.
 */
export function adminProvisionRouter(deps: AdminProvisionDeps): Router {
  const router = Router();
  router.post('/identities/:kind/:key/provision', ...jsonBody(deps.bodyLimitBytes), async (req, res) => {
    const { kind, key } = parseInput(ProvisionParams, req.params, 'path');
    const body = parseInput(ProvisionBody, optionalBody(req.body), 'body');
    if (!deps.provision) throw new BridgeError('not_enabled', 'Provisioning on demand is not enabled here');
    const result = await deps.provision({
      kind,
      key,
      ...(body.input === undefined ? {} : { input: body.input }),
      dryRun: body.dryRun,
      waitMs: body.waitSeconds * 1000,
    });
    res.json(provisionView(result));
  });
  return router;
}

/** The answer as the schema writes it (the desired state as a plain object). */
function provisionView(result: Provisioned): ProvisionResult {
  const { mapping } = result.steps;
  return {
    ...result,
    steps: {
      ...result.steps,
      mapping:
        mapping.outcome === 'mapped'
          ? {
              outcome: 'mapped',
              identity: withoutMembers(mapping.identity),
              expressions: mapping.expressions,
            }
          : mapping,
    },
  };
}

function withoutMembers(identity: object): Record<string, unknown> {
  const { members: _members, ...rest } = identity as Record<string, unknown>;
  return rest;
}
