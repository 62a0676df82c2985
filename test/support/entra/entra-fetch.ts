import { constants, randomUUID, sign } from 'node:crypto';
import type { GraphPermission } from './entra-apps.js';
import type { CertificatePair } from './entra-certificate.js';
import type { EntraGraphServer } from './entra-server.js';

/**
 * Plain `fetch` calls against the emulation (the one `server()` gives), for its own tests: a token by secret, a GET with a
 * bearer, a whole delta round, and a client assertion signed with node:crypto.
 */
export type Json = Record<string, unknown> & { value?: Record<string, unknown>[] };

export function entraFetch(server: () => EntraGraphServer) {
  const tokenRequest = async (form: Record<string, string>, init: RequestInit = {}) => {
    const response = await fetch(server().tokenUrl, {
      method: 'POST',
      body: new URLSearchParams(form),
      ...init,
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const appWith = (...permissions: GraphPermission[]) => {
    const entra = server();
    const app = entra.createApp({ permissions });
    const secret = entra.addSecret(app.clientId);
    const form = {
      grant_type: 'client_credentials',
      client_id: app.clientId,
      scope: entra.scope,
      client_secret: secret.secret,
    };
    return { ...app, ...secret, form };
  };
  const tokenFor = async (...permissions: GraphPermission[]) => {
    const { body } = await tokenRequest(appWith(...permissions).form);
    return body.access_token as string;
  };
  const get = async (path: string, token: string | undefined, headers: Record<string, string> = {}) => {
    const url = path.startsWith('http') ? path : `${server().graphUrl}${path}`;
    const auth: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const response = await fetch(url, { headers: { ...auth, ...headers } });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
  };
  const round = (start: string, token: string, headers: Record<string, string> = {}) =>
    followRound(get, start, token, headers);
  return { tokenRequest, appWith, tokenFor, get, round };
}

type Get = ReturnType<typeof entraFetch>['get'];

/** Follows a delta round to its delta link, checking each page has one link of the two. */
async function followRound(get: Get, start: string, token: string, headers: Record<string, string>) {
  const pages: Json[] = [];
  let url: string | undefined = start;
  while (url) {
    const page = await get(url, token, headers);
    const links = ['@odata.nextLink', '@odata.deltaLink'].filter((link) => link in page.body);
    if (page.status !== 200 || links.length !== 1) {
      throw new Error(`a delta page answered ${page.status} with links ${links.join(', ') || 'none'}`);
    }
    pages.push(page.body);
    url = page.body['@odata.nextLink'] as string | undefined;
  }
  const items = pages.flatMap((page) => page.value ?? []);
  return { pages, items, deltaLink: pages.at(-1)?.['@odata.deltaLink'] as string };
}

/** A client assertion (certificate-credentials.md) for `clientId`, claims overridable. */
export function signAssertion(
  entra: EntraGraphServer,
  clientId: string,
  pair: CertificatePair,
  header: Record<string, unknown>,
  claims: Record<string, unknown> = {},
): string {
  const now = Math.floor(entra.clock.now() / 1000);
  const payload = {
    aud: entra.tokenUrl,
    iss: clientId,
    sub: clientId,
    jti: randomUUID(),
    nbf: now,
    exp: now + 300,
    ...claims,
  };
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode({ typ: 'JWT', ...header })}.${encode(payload)}`;
  const key =
    header.alg === 'PS256'
      ? { key: pair.privateKeyPem, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 }
      : pair.privateKeyPem;
  return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
}
