// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const REFERENCE_TARGET = {
  group: ['scim-reference-target', 'scim-reference-target/*', '**/reference-target/**'],
  message:
    'Only the demo and the reference-target command use the reference target (see docs/architecture.md).',
};

/** Only store/ touches Redis: its client library and its key layout stay there (and in wiring/, ops/). */
const REDIS = {
  group: ['ioredis', '**/store/keys.js'],
  message: 'Only store/ (and wiring/, ops/) may use Redis directly: go through a store port.',
};
const REDIS_ROOMS = ['store', 'wiring', 'ops'];

/**
 * Forbids imports from the given top-level folders of src/ (the dependency direction), of Redis
 * outside the rooms that own it, and of the reference target, which only the demo and the
 * `reference-target` command may use.
 */
function layer(folder, forbidden) {
  return {
    files: [`src/${folder}/**/*.ts`],
    ignores: ['src/cli/demo.command.ts', 'src/cli/reference-target.command.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...forbidden.map((other) => ({
              group: [`**/${other}/*`, `../${other}/*`, `../../${other}/*`],
              message: `${folder} must not depend on ${other} (see docs/architecture.md).`,
            })),
            ...(REDIS_ROOMS.includes(folder) ? [] : [REDIS]),
            REFERENCE_TARGET,
          ],
        },
      ],
    },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'reference-target/dist/**', 'node_modules/**', 'coverage/**', 'helm/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only src/main.ts and the CLI read process.env; pass config down.',
        },
      ],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  // The data flows one way: sources → store → queue → reconcile → platform, a full sync (sync/) drives
  // the queue from outside, admin/ reads and drives the rest, http/ is only the edge. The folders
  // below may not import the ones listed; main.ts, wiring/ and cli/ wire everything together.
  layer('domain', [
    'api-client',
    'config',
    'ops',
    'store',
    'platform',
    'reconcile',
    'queue',
    'sync',
    'sources',
    'http',
    'admin',
    'wiring',
    'cli',
  ]),
  layer('config', [
    'ops',
    'store',
    'platform',
    'reconcile',
    'queue',
    'sync',
    'sources',
    'http',
    'admin',
    'wiring',
    'cli',
  ]),
  layer('ops', [
    'store',
    'platform',
    'reconcile',
    'queue',
    'sync',
    'sources',
    'http',
    'admin',
    'wiring',
    'cli',
  ]),
  // The client of the APIs inputs read: below sources/ (and platform/, where it fits), above domain/.
  layer('api-client', [
    'config',
    'ops',
    'store',
    'platform',
    'reconcile',
    'queue',
    'sync',
    'sources',
    'http',
    'admin',
    'wiring',
    'cli',
  ]),
  layer('store', ['platform', 'reconcile', 'queue', 'sync', 'sources', 'http', 'admin', 'wiring', 'cli']),
  layer('platform', ['store', 'reconcile', 'queue', 'sync', 'sources', 'http', 'admin', 'wiring', 'cli']),
  layer('reconcile', ['queue', 'sync', 'sources', 'http', 'admin', 'wiring', 'cli']),
  layer('queue', ['sync', 'sources', 'http', 'admin', 'wiring', 'cli']),
  layer('sync', ['sources', 'http', 'admin', 'wiring', 'cli']),
  layer('sources', ['platform', 'reconcile', 'sync', 'admin', 'wiring', 'cli']),
  layer('http', ['platform', 'reconcile', 'queue', 'sync', 'sources', 'admin', 'wiring', 'cli']),
  layer('admin', ['platform', 'reconcile', 'sources', 'wiring', 'cli']),
  layer('wiring', ['cli']),
  layer('cli', []),
  {
    files: ['src/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [REDIS, REFERENCE_TARGET] }] },
  },
  // The reference target is a package of its own: it imports nothing of the bridge.
  {
    files: ['reference-target/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['../../*'], message: 'The reference target imports nothing of the bridge.' }],
        },
      ],
    },
  },
  // Small files and functions (docs/architecture.md).
  {
    files: ['src/**/*.ts', 'reference-target/src/**/*.ts', 'src/admin/ui/public/**/*.js'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 60 }],
    },
  },
  {
    files: [
      'src/main.ts',
      'src/cli/**/*.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'tools/**/*.ts',
      'vitest.config.ts',
    ],
    rules: { 'no-restricted-properties': 'off', 'no-console': 'off' },
  },
  // The dashboard's browser modules (served as they are, type-checked by src/admin/ui/tsconfig.json).
  {
    files: ['src/admin/ui/public/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'CSS',
          'HTMLElement',
          'Node',
          'URL',
          'URLSearchParams',
          'clearInterval',
          'confirm',
          'document',
          'fetch',
          'location',
          'sessionStorage',
          'setInterval',
          'setTimeout',
          'window',
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    files: ['bin/**/*.js', 'tools/**/*.mjs', '*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
);
