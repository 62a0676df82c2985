import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { isBridgeError } from '../../src/domain/errors.js';
import { CATALOG, inputSettingProblems } from '../../src/sources/registry.js';

// The `entra` source's settings as the configuration reads them (SPEC §3 ENTRA_*): from variables
// for the first directory, from a config file for an item of `directories:`. Pure: no I/O beyond
// config/default.yaml and the files given here.
const base = {
  REDIS_URL: 'redis://127.0.0.1:6379',
  TARGET_URL: 'https://acme.example.com',
  TARGET_TOKEN: 'target-token-value',
};
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '1950a258-227b-4e31-a9cf-717495945fc2';
const entra = {
  ...base,
  DIRECTORY_SOURCE: 'entra',
  ENTRA_TENANT_ID: TENANT,
  ENTRA_CLIENT_ID: CLIENT,
  ENTRA_CLIENT_SECRET: 'a-client-secret-value',
};

const readFile = (files: Record<string, string>) => (path: string) => {
  if (path in files) return files[path] as string;
  if (path.endsWith('config/default.yaml'))
    return readFileSync(new URL('../../config/default.yaml', import.meta.url), 'utf8');
  throw Object.assign(new Error('missing'), { code: 'ENOENT' });
};

function problemsOf(env: Record<string, string>, files: Record<string, string> = {}): readonly string[] {
  try {
    loadConfig(env, CATALOG, { readFile: readFile(files) });
  } catch (error) {
    if (isBridgeError(error, 'config_invalid')) return error.problems;
    throw error;
  }
  return [];
}

describe('the entra source settings', () => {
  it('reads ENTRA_* into directory.entra with the defaults of config/default.yaml', () => {
    const config = loadConfig({ ...entra, ENTRA_ASSIGNED_TO: CLIENT }, CATALOG, { readFile: readFile({}) });
    expect((config.directory as unknown as Record<string, unknown>).entra).toEqual({
      tenantId: TENANT,
      clientId: CLIENT,
      clientSecret: 'a-client-secret-value',
      clientCertificateFile: '',
      assignedTo: CLIENT,
      authorityHost: 'https://login.microsoftonline.com',
      graphUrl: 'https://graph.microsoft.com',
      pageSize: 999,
      concurrency: 4,
      timeoutSeconds: 30,
      userAttributes: [],
    });
  });

  it('names what is missing or contradictory, one line each, never the secret', () => {
    expect(problemsOf({ ...base, DIRECTORY_SOURCE: 'entra' })).toEqual([
      'ENTRA_TENANT_ID: required when DIRECTORY_SOURCE=entra — expected the Directory (tenant) ID, a GUID, or a verified domain of the tenant',
      'ENTRA_CLIENT_ID: required when DIRECTORY_SOURCE=entra — expected the Application (client) ID of the app registration, a GUID',
      "ENTRA_CLIENT_SECRET: required, or a certificate (clientCertificateFile, ENTRA_CLIENT_CERTIFICATE_FILE) — expected the client secret's Value (not its Secret ID)",
    ]);
    const problems = problemsOf({
      ...entra,
      ENTRA_CLIENT_ID: 'my-app',
      ENTRA_CLIENT_CERTIFICATE_FILE: '/run/secrets/entra.pem',
      ENTRA_ASSIGNED_TO: 'Databricks',
      ENTRA_GRAPH_URL: 'http://graph.example.com',
    });
    expect(problems).toEqual([
      'ENTRA_GRAPH_URL: "http://graph.example.com" is not an https URL (http only on a loopback host, e.g. an emulation) — expected Microsoft Graph\'s origin, e.g. https://graph.microsoft.com',
      'ENTRA_CLIENT_ID: not an application (client) id, a GUID — expected the Application (client) ID of the app registration, a GUID',
      'ENTRA_CLIENT_CERTIFICATE_FILE: set beside a client secret: give one credential, the secret or the certificate — expected the path of a PEM file holding the certificate and its unencrypted private key',
      'ENTRA_ASSIGNED_TO: not an object id (a GUID) of an enterprise application — expected the Object ID of the enterprise application (its service principal), a GUID',
    ]);
    expect(problems.join('\n')).not.toContain('a-client-secret-value');
    expect(problemsOf({ ...entra, ENTRA_TENANT_ID: 'contoso.onmicrosoft.com' })).toEqual([]);
  });

  it('takes an entra item of directories: with its secret from a file, and names its problems by path', () => {
    const files = {
      '/c.yaml': [
        'directories:',
        '  - name: fabrikam',
        '    source: entra',
        '    deltaSeconds: 30',
        `    entra: {tenantId: ${TENANT}, clientId: ${CLIENT}, clientSecretFile: /run/secrets/fabrikam}`,
        '  - {name: broken, source: entra, deltaSeconds: 30, entra: {tenantId: x}}',
        '',
      ].join('\n'),
      '/run/secrets/fabrikam': 'fabrikam-secret\n',
    };
    expect(problemsOf({ ...base, CONFIG_FILE: '/c.yaml' }, files)).toEqual([
      'directories.1.entra.tenantId: not a tenant id (a GUID) or a domain',
      'directories.1.entra.clientId: required when source is entra',
      'directories.1.entra.clientSecret: required, or a certificate (clientCertificateFile, ENTRA_CLIENT_CERTIFICATE_FILE)',
    ]);
    const [fabrikam] = loadConfig({ ...base, CONFIG_FILE: '/c.yaml' }, CATALOG, {
      readFile: readFile({
        ...files,
        '/c.yaml': (files['/c.yaml'] as string).split('  - {name: broken')[0] as string,
      }),
    }).directories as unknown as { entra: Record<string, unknown> }[];
    expect(fabrikam?.entra).toMatchObject({ clientSecret: 'fabrikam-secret', pageSize: 999 });
  });

  it('refuses a certificate file it cannot read when the source is built', () => {
    const config = loadConfig(
      { ...entra, ENTRA_CLIENT_SECRET: '', ENTRA_CLIENT_CERTIFICATE_FILE: '/nowhere/entra.pem' },
      CATALOG,
      { readFile: readFile({}) },
    );
    expect(inputSettingProblems(config)).toEqual([
      "the directory directory's entra.clientCertificateFile: /nowhere/entra.pem: cannot be read (ENOENT) — expected a PEM file with the certificate and its private key",
    ]);
  });
});
