import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

const restrict = (patterns, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
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
    files: ['shared/**'],
    rules: restrict(
      ['node:*', 'electron', 'react', 'react-dom', '**/electron/**', '**/renderer/**'],
      'shared/ runs everywhere: no Node, Electron, DOM or React imports.',
    ),
  },
  {
    files: ['renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrict(
        ['node:*', 'electron', '**/electron/**'],
        'The renderer talks only to window.kvscope.',
      ),
    },
  },
  {
    files: ['electron/**'],
    ignores: ['electron/main/**', 'electron/preload/**'],
    rules: restrict(
      ['electron', '**/main/**', '**/preload/**'],
      'Only electron/main and electron/preload may import electron: the rest runs under plain Node.',
    ),
  },
);
