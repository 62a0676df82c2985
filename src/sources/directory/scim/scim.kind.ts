import { z } from 'zod';
import { int, optionalUrl } from '../../../config/schema.js';
import { directorySourceKind } from '../../source-kind.js';
import { ScimDirectorySource } from './scim.source.js';

const DEFAULT_TIMEOUT_MS = 30_000;

/** The `scim` source: every User and Group of an upstream SCIM 2.0 server (SPEC §5.4). */
export const scimSource = directorySourceKind({
  title: 'upstream SCIM 2.0 server',
  settings: {
    key: 'scim',
    shape: z.object({
      url: optionalUrl(['http', 'https']).default(''),
      token: z.string().default(''),
      pageSize: int(1, 1000).default(200),
    }),
    env: [
      {
        env: 'SOURCE_SCIM_URL',
        key: 'url',
        kind: 'string',
        expected: 'an http(s) URL of a SCIM 2.0 base, e.g. https://idp/scim/v2',
      },
      {
        env: 'SOURCE_SCIM_TOKEN',
        key: 'token',
        kind: 'string',
        expected: 'the upstream bearer token',
        secret: true,
      },
    ],
    problems: (settings) => (settings.url === '' ? [{ key: 'url', message: 'required' }] : []),
  },
  build: (settings, context) =>
    new ScimDirectorySource({
      url: settings.url,
      token: context.secret('token'),
      pageSize: settings.pageSize,
      timeoutMs: context.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      input: context.owner,
      ...(context.metrics ? { metrics: context.metrics } : {}),
    }),
});
