import type { Request, Router } from 'express';
import SCIMMY from 'scimmy';
import SCIMMYRouters from 'scimmy-routers';
import { MAX_RESULTS } from './scim-schema.js';

/**
 * scimmy-routers serves the discovery endpoints (RFC 7644 §4: /ServiceProviderConfig,
 * /ResourceTypes, /Schemas) from scimmy's declared resources, and answers what the bridge does not
 * implement (/Bulk, /Me, unknown endpoints) with SCIM errors. /Users and /Groups are served by the
 * bridge's own routes, mounted in front (see scim-router.ts for why).
 *
 * scimmy keeps its declarations and configuration in process-wide singletons, so they are set up
 * once here and the router is shared by every scimRouter() of the process.
 */

let shared: Router | undefined;
const origins = new WeakMap<Request, string>();

/**
 * Remembers the origin (scheme://host) the request reached, for scimmy-routers' `meta.location`
 * values: it appends the mount path itself.
 */
export function rememberOrigin(req: Request, origin: string): void {
  origins.set(req, origin);
}

function declareResources(): void {
  if (!SCIMMY.Resources.declared(SCIMMY.Resources.User)) {
    SCIMMY.Resources.declare(SCIMMY.Resources.User.extend(SCIMMY.Schemas.EnterpriseUser, false));
  }
  if (!SCIMMY.Resources.declared(SCIMMY.Resources.Group)) SCIMMY.Resources.declare(SCIMMY.Resources.Group);
  onlyUserMembers();
}

/**
 * The bridge's groups hold users only (a group member is refused: the platform has no nested
 * groups), so /Schemas says so (RFC 7643 §7: canonicalValues, referenceTypes) and a client that
 * reads the schema sends what it gets back. scimmy's Group definition offers User and Group: its
 * members' `type` and `$ref` are narrowed here, once, where the declarations are set up.
 */
function onlyUserMembers(): void {
  const members = SCIMMY.Schemas.Group.definition.attribute('members');
  for (const sub of members.subAttributes ?? []) {
    const config = sub.config as { canonicalValues?: string[]; referenceTypes?: string[] };
    if (sub.name === 'type') config.canonicalValues = ['User'];
    if (sub.name === '$ref') config.referenceTypes = ['User'];
  }
}

/**
 * What the server supports (RFC 7643 §5). scimmy-routers switches everything on when constructed
 * (bulk and sort included), so this runs after it. Bulk is off: neither Entra ID nor Okta uses it,
 * and a bulk request would bypass the per-request dialect handling (POST /Bulk answers 501).
 */
function configure(): void {
  SCIMMY.Config.set({
    patch: true,
    filter: { supported: true, maxResults: MAX_RESULTS },
    bulk: false,
    sort: false,
    etag: false,
    changePassword: false,
  });
  SCIMMY.Config.set('authenticationSchemes', []);
  SCIMMY.Config.set('authenticationSchemes', [
    {
      type: 'oauthbearertoken',
      name: 'OAuth Bearer Token',
      description: 'Authentication with the INBOUND_SCIM_TOKEN bearer token (RFC 6750)',
      specUri: 'https://datatracker.ietf.org/doc/html/rfc6750',
      primary: true,
    },
  ]);
}

/** The shared scimmy-routers instance; requests reach it already authenticated. */
export function discoveryRouter(): Router {
  if (shared) return shared;
  declareResources();
  const routers = new SCIMMYRouters({
    type: 'bearer',
    // Authentication happens before this router (scim-router.ts), which also answers /Me.
    handler: () => '',
    baseUri: (req) => origins.get(req) ?? '',
  });
  configure();
  shared = routers as unknown as Router;
  return shared;
}
