// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Forbids imports from the given top-level folders of src/ (the dependency direction). */
function layer(files, forbidden) {
  return [
    {
      files: [files],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: forbidden.map((folder) => ({
              group: [`**/${folder}/*`, `../${folder}/*`, `../../${folder}/*`],
              message: `${files.split('/')[1]} must not depend on ${folder} (see docs/architecture.md).`,
            })),
          },
        ],
      },
    },
  ];
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'helm/**'] },
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
  // The data flows one way (STYLE.md): sources → store → queue → reconcile → target; domain is pure.
  ...layer('src/domain/**/*.ts', [
    'config',
    'store',
    'queue',
    'reconcile',
    'platform',
    'http',
    'ops',
    'sources',
    'wiring',
    'cli',
    'reference-target',
  ]),
  ...layer('src/store/**/*.ts', ['queue', 'reconcile', 'platform', 'http', 'sources', 'wiring', 'cli']),
  ...layer('src/platform/**/*.ts', ['queue', 'reconcile', 'http', 'sources', 'wiring', 'cli']),
  ...layer('src/reconcile/**/*.ts', ['queue', 'http', 'sources', 'wiring', 'cli']),
  ...layer('src/queue/**/*.ts', ['http', 'wiring', 'cli']),
  ...layer('src/sources/**/*.ts', ['reconcile', 'platform', 'wiring', 'cli']),
  ...layer('src/reference-target/**/*.ts', [
    'store',
    'queue',
    'reconcile',
    'platform',
    'sources',
    'wiring',
    'cli',
  ]),
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
