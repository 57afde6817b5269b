import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

/** One no-restricted-imports rule from [patterns, message] pairs (a later config replaces it). */
const restrict = (...groups) => ({
  'no-restricted-imports': [
    'error',
    { patterns: groups.map(([group, message]) => ({ group, message })) },
  ],
});

const NO_ELECTRON = [
  ['electron', '**/main/**', '**/preload/**'],
  'Only electron/main and electron/preload may import electron: the rest runs under plain Node.',
];

/** A layer of electron/ and the layers it must not reach into. */
const layer = (dir, forbidden, why) => ({
  files: [`electron/${dir}/**`],
  rules: restrict(NO_ELECTRON, [forbidden.map((d) => `**/${d}/**`), why]),
});

export default tseslint.config(
  { ignores: ['dist/', 'release/', 'node_modules/', 'test-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Type-aware rules: the two type-check projects give every TypeScript file its types.
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.web.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
    },
  },
  {
    files: ['shared/**'],
    rules: restrict([
      ['node:*', 'electron', 'react', 'react-dom', '**/electron/**', '**/renderer/**'],
      'shared/ runs everywhere: no Node, Electron, DOM or React imports.',
    ]),
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrict([
        ['node:*', 'electron', '**/electron/**'],
        'The renderer talks only to window.kvscope.',
      ]),
    },
  },
  {
    files: ['electron/**'],
    ignores: ['electron/main/**', 'electron/preload/**'],
    rules: restrict(NO_ELECTRON),
  },
  // Layers: each imports only from below it
  // (collections < wire < model/analysis < ingest < session < service).
  layer(
    'collections',
    ['wire', 'ingest', 'session', 'model', 'analysis', 'service'],
    'Collections are plain data structures: they know no stage that uses them.',
  ),
  layer(
    'wire',
    ['ingest', 'session', 'model', 'analysis', 'service'],
    'wire decodes bytes: it knows no later stage.',
  ),
  layer(
    'model',
    ['wire', 'ingest', 'session', 'analysis', 'service'],
    'The model is fed records: it knows no source, file or analysis.',
  ),
  layer(
    'analysis',
    ['wire', 'ingest', 'session', 'model', 'service'],
    'The analysis is fed records: it knows no source, file or model.',
  ),
  layer(
    'ingest',
    ['session', 'model', 'analysis', 'service'],
    'Sources deliver records to a sink: they know no recording or model.',
  ),
  layer(
    'metrics',
    ['service', 'cli'],
    'Metrics read records and source health: the service and the CLI wrap them.',
  ),
  layer(
    'service',
    ['main', 'serve', 'host'],
    'The service knows no transport: main/ and serve/ wrap it.',
  ),
  layer(
    'host',
    ['main', 'serve', 'cli'],
    'The service host runs in a worker or a utility process: it knows no window, HTTP or CLI.',
  ),
  layer('serve', ['main', 'cli'], 'The browser host runs under plain Node: no window, no CLI.'),
);
