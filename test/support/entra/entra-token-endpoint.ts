import type { AccessTokens } from './entra-access-tokens.js';
import type { AppRegistration, AppRegistry } from './entra-apps.js';
import { checkAssertion, type Refusal } from './entra-assertion.js';
import type { EntraClock } from './entra-clock.js';
import { stsError, type Reply, type RequestIds } from './entra-replies.js';
import type { EntraTenant } from './entra-tenant.js';

/**
 * `POST /{tenant}/oauth2/v2.0/token`, the client credentials grant
 * (v2-oauth2-client-creds-grant-flow.md): form-encoded `grant_type=client_credentials`,
 * `client_id`, `scope` = the resource's `/.default`, and either `client_secret` or a certificate's
 * `client_assertion`. Refusals carry the AADSTS codes reference-error-codes.md lists.
 */
export interface TokenEndpoint {
  clock: EntraClock;
  tokens: AccessTokens;
  tenant(segment: string): EntraTenant | undefined;
  loginUrl: string;
  /** Graph's origin: the only resource whose `/.default` scope the endpoint grants. */
  graphUrl: string;
  maxAssertionLifetimeSeconds: number;
}

export interface TokenRequest {
  method: string;
  path: string;
  contentType: string;
  body: string;
  /** The `Authorization` header: client_secret_basic (RFC 6749 §2.3.1) sends the secret there. */
  authorization?: string;
}

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const PATH = /^\/([^/]+)\/oauth2\/v2\.0\/token$/;

/** The answer, and the tenant and client id the request named (for the request log). */
export function answerToken(
  endpoint: TokenEndpoint,
  request: TokenRequest,
  ids: RequestIds,
): { reply: Reply; clientId?: string; tenantId?: string } {
  const refuse = (r: Refusal) => stsError(endpoint.clock, ids, r.status, r.error, r.code, r.message);
  const segment = PATH.exec(request.path)?.[1];
  if (segment === undefined) return { reply: { status: 404, body: { error: 'not_found' } } };
  const tenant = endpoint.tenant(segment);
  if (!tenant) return { reply: refuse(unknownTenant(segment)) };
  if (request.method !== 'POST') {
    const message = `The endpoint only accepts POST, OPTIONS requests. Received a ${request.method} request.`;
    return {
      reply: refuse({ status: 400, error: 'invalid_request', code: 900561, message }),
      tenantId: tenant.id,
    };
  }
  const form = /^application\/x-www-form-urlencoded\b/i.test(request.contentType)
    ? new URLSearchParams(request.body)
    : new URLSearchParams();
  const basic = basicCredentials(form, request.authorization);
  if (basic) return { reply: refuse(basic), tenantId: tenant.id };
  const clientId = form.get('client_id') ?? undefined;
  const outcome = grant(endpoint, tenant, form, segment);
  const reply = 'code' in outcome ? refuse(outcome) : success(endpoint, tenant, outcome);
  return { reply, tenantId: tenant.id, ...(clientId !== undefined ? { clientId } : {}) };
}

function grant(
  endpoint: TokenEndpoint,
  tenant: EntraTenant,
  form: URLSearchParams,
  segment: string,
): Refusal | AppRegistration {
  const grantType = form.get('grant_type');
  if (!grantType) return missing('grant_type');
  if (grantType !== 'client_credentials') {
    const message = `The app requested an unsupported grant type '${grantType}'.`;
    return { status: 400, error: 'unsupported_grant_type', code: 70003, message };
  }
  const clientId = form.get('client_id');
  if (!clientId) return missing('client_id');
  const app = tenant.apps.find(clientId);
  if (!app) return unknownApp(clientId, tenant);
  const scope = form.get('scope');
  if (!scope) return missing('scope');
  return checkScope(endpoint, tenant, scope) ?? authenticate(endpoint, tenant, app, form, segment);
}

/** The client's credential: a secret, or a client assertion signed by one of its certificates. */
function authenticate(
  endpoint: TokenEndpoint,
  tenant: EntraTenant,
  app: AppRegistration,
  form: URLSearchParams,
  segment: string,
): Refusal | AppRegistration {
  const secret = form.get('client_secret');
  const assertion = form.get('client_assertion');
  if (secret !== null && assertion !== null) {
    const message = 'The request carries both a client_secret and a client_assertion; send one of them.';
    return { status: 400, error: 'invalid_request', code: 90023, message };
  }
  if (secret !== null) return checkSecret(endpoint, tenant.apps, app, secret);
  if (assertion === null) {
    const message =
      "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.";
    return { status: 401, error: 'invalid_client', code: 7000218, message };
  }
  if (form.get('client_assertion_type') !== JWT_BEARER) {
    const message = "The parameter 'client_assertion_type' is empty or not valid.";
    return { status: 400, error: 'invalid_request', code: 90100, message };
  }
  const audiences = [tenant.id, tenant.domain, segment].map(
    (t) => `${endpoint.loginUrl}/${t}/oauth2/v2.0/token`,
  );
  const refused = checkAssertion(assertion, {
    app,
    audiences,
    nowSeconds: endpoint.clock.seconds(),
    maxLifetimeSeconds: endpoint.maxAssertionLifetimeSeconds,
  });
  return refused ?? app;
}

function checkScope(endpoint: TokenEndpoint, tenant: EntraTenant, scope: string): Refusal | undefined {
  const scopes = scope.split(' ').filter(Boolean);
  if (scopes.some((s) => !s.endsWith('/.default'))) {
    const message =
      `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value ` +
      'with /.default suffixed to the resource identifier (application ID URI).';
    return { status: 400, error: 'invalid_scope', code: 1002012, message };
  }
  if (scopes.length > 1) {
    const message =
      "The provided value for the input parameter 'scope' isn't valid because it contains more than one resource.";
    return { status: 400, error: 'invalid_scope', code: 700022, message };
  }
  const resource = (scopes[0] as string).slice(0, -'/.default'.length);
  if (resource === endpoint.graphUrl) return undefined;
  const message =
    `The resource principal named ${resource} was not found in the tenant named ${tenant.domain}. This can happen ` +
    'if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.';
  return { status: 400, error: 'invalid_resource', code: 500011, message };
}

function checkSecret(
  endpoint: TokenEndpoint,
  apps: AppRegistry,
  app: AppRegistration,
  value: string,
): Refusal | AppRegistration {
  const secret = apps.matchSecret(app, value);
  if (!secret) {
    const message =
      'Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, ' +
      `not the client secret ID, for a secret added to app '${app.clientId}'.`;
    return { status: 401, error: 'invalid_client', code: 7000215, message };
  }
  if (secret.expiresAt <= endpoint.clock.now()) {
    const message =
      `The provided client secret keys for app '${app.clientId}' are expired. Visit the Azure portal to create new ` +
      'keys for your app: https://aka.ms/NewClientSecret, or consider using certificate credentials for added security: https://aka.ms/certCreds.';
    return { status: 401, error: 'invalid_client', code: 7000222, message };
  }
  return app;
}

function success(endpoint: TokenEndpoint, tenant: EntraTenant, app: AppRegistration): Reply {
  const lifetime = endpoint.tokens.lifetimeSeconds;
  return {
    status: 200,
    headers: { 'cache-control': 'no-store, no-cache', pragma: 'no-cache' },
    body: {
      token_type: 'Bearer',
      expires_in: lifetime,
      ext_expires_in: lifetime,
      access_token: endpoint.tokens.issue(tenant.id, app.clientId, app.permissions),
    },
  };
}

/**
 * client_secret_basic: `Basic base64(urlencode(client_id):urlencode(secret))`, folded into the
 * form; a secret sent both ways, or two different client ids, is refused.
 */
function basicCredentials(form: URLSearchParams, authorization: string | undefined): Refusal | undefined {
  const encoded = /^Basic\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (encoded === undefined) return undefined;
  const [id, secret] = Buffer.from(encoded, 'base64').toString('utf8').split(':', 2);
  const clientId = decodeURIComponent((id ?? '').replace(/\+/g, ' '));
  const sentId = form.get('client_id');
  if (secret === undefined || form.has('client_secret') || (sentId !== null && sentId !== clientId)) {
    const message =
      'The client credentials were sent more than once or do not agree (Authorization header and body).';
    return { status: 400, error: 'invalid_request', code: 90023, message };
  }
  form.set('client_id', clientId);
  form.set('client_secret', decodeURIComponent(secret.replace(/\+/g, ' ')));
  return undefined;
}

function missing(name: string): Refusal {
  const message = `The request body must contain the following parameter: '${name}'.`;
  return { status: 400, error: 'invalid_request', code: 900144, message };
}

function unknownApp(clientId: string, tenant: EntraTenant): Refusal {
  const message =
    `Application with identifier '${clientId}' was not found in the directory '${tenant.domain}'. This can happen if ` +
    'the application has not been installed by the administrator of the tenant or consented to by any user in the ' +
    'tenant. You may have sent your authentication request to the wrong tenant.';
  return { status: 400, error: 'unauthorized_client', code: 700016, message };
}

function unknownTenant(segment: string): Refusal {
  if (['common', 'consumers'].includes(segment.toLowerCase())) {
    const message =
      'The grant type is not supported over the /common or /consumers endpoints. Please use the /organizations or tenant-specific endpoint.';
    return { status: 400, error: 'invalid_request', code: 9001023, message };
  }
  const message =
    `Tenant '${segment}' not found. Check to make sure you have the correct tenant ID and are signing into the ` +
    'correct cloud. Check with your subscription administrator, this may happen if there are no active subscriptions for the tenant.';
  return { status: 400, error: 'invalid_request', code: 90002, message };
}
