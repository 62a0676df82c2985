import { z } from 'zod';
import type { SectionProblem, SectionSettings } from '../../../config/catalog.js';
import { int } from '../../../config/schema.js';

/**
 * The `entra` source's settings (`directory.entra`, SPEC §3 ENTRA_*), with config/default.yaml's
 * defaults. The endpoints are settings for the national clouds (learn.microsoft.com/graph/deployments)
 * and for a local emulation; they must be https, except on a loopback host, since the client
 * secret and the tokens travel to them.
 */

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
/** Graph property names ($select): letters and digits, e.g. `jobTitle`, `extension_…_costCenter`. */
const PROPERTY = /^[A-Za-z][A-Za-z0-9_]*$/;

const endpoint = (fallback: string) =>
  z
    .string()
    .refine(isEndpoint, 'not an https URL (http only on a loopback host, e.g. an emulation)')
    .default(fallback);

const shape = z.object({
  tenantId: z.string().default(''),
  clientId: z.string().default(''),
  clientSecret: z.string().default(''),
  clientCertificateFile: z.string().default(''),
  assignedTo: z.string().default(''),
  authorityHost: endpoint('https://login.microsoftonline.com'),
  graphUrl: endpoint('https://graph.microsoft.com'),
  pageSize: int(1, 999).default(999),
  concurrency: int(1, 16).default(4),
  timeoutSeconds: int(1, 600).default(30),
  userAttributes: z
    .array(z.string().regex(PROPERTY, 'not a Graph property name'), { error: 'not a list' })
    .default([]),
});

export type EntraSettings = z.output<typeof shape>;

export const entraSettings: SectionSettings<typeof shape> = {
  key: 'entra',
  shape,
  env: [
    {
      env: 'ENTRA_TENANT_ID',
      key: 'tenantId',
      kind: 'string',
      expected: 'the Directory (tenant) ID, a GUID, or a verified domain of the tenant',
    },
    {
      env: 'ENTRA_CLIENT_ID',
      key: 'clientId',
      kind: 'string',
      expected: 'the Application (client) ID of the app registration, a GUID',
    },
    {
      env: 'ENTRA_CLIENT_SECRET',
      key: 'clientSecret',
      kind: 'string',
      expected: "the client secret's Value (not its Secret ID)",
      secret: true,
    },
    {
      env: 'ENTRA_CLIENT_CERTIFICATE_FILE',
      key: 'clientCertificateFile',
      kind: 'string',
      expected: 'the path of a PEM file holding the certificate and its unencrypted private key',
    },
    {
      env: 'ENTRA_ASSIGNED_TO',
      key: 'assignedTo',
      kind: 'string',
      expected: 'the Object ID of the enterprise application (its service principal), a GUID',
    },
    {
      env: 'ENTRA_AUTHORITY_HOST',
      key: 'authorityHost',
      kind: 'string',
      expected: 'the sign-in host, e.g. https://login.microsoftonline.com',
    },
    {
      env: 'ENTRA_GRAPH_URL',
      key: 'graphUrl',
      kind: 'string',
      expected: "Microsoft Graph's origin, e.g. https://graph.microsoft.com",
    },
  ],
  problems: entraProblems,
};

/** What a directory using the `entra` source must have, and the settings that contradict each other. */
function entraProblems(settings: EntraSettings): SectionProblem[] {
  const problems: SectionProblem[] = [];
  if (settings.tenantId === '') problems.push({ key: 'tenantId', message: 'required' });
  else if (!GUID.test(settings.tenantId) && !DOMAIN.test(settings.tenantId))
    problems.push({ key: 'tenantId', message: 'not a tenant id (a GUID) or a domain' });
  if (settings.clientId === '') problems.push({ key: 'clientId', message: 'required' });
  else if (!GUID.test(settings.clientId))
    problems.push({ key: 'clientId', message: 'not an application (client) id, a GUID' });
  const secret = settings.clientSecret !== '';
  const certificate = settings.clientCertificateFile !== '';
  if (!secret && !certificate)
    problems.push({
      key: 'clientSecret',
      message: 'required, or a certificate (clientCertificateFile, ENTRA_CLIENT_CERTIFICATE_FILE)',
    });
  if (secret && certificate)
    problems.push({
      key: 'clientCertificateFile',
      message: 'set beside a client secret: give one credential, the secret or the certificate',
    });
  if (settings.assignedTo !== '' && !GUID.test(settings.assignedTo))
    problems.push({ key: 'assignedTo', message: 'not an object id (a GUID) of an enterprise application' });
  return problems;
}

function isEndpoint(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return url.protocol === 'http:' && loopback;
}
