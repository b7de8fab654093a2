import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'data',
      'dist',
      'coverage',
      'web/dist',
      'widget/dist',
      'web/e2e-output',
      'web/src/api/schema.d.ts',
      'widget/src/api-schema.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['src/db/pglite-worker.js'],
    languageOptions: { globals: { URL: 'readonly', Blob: 'readonly', WebAssembly: 'readonly' } },
  },
  {
    files: ['src/modules/knowledge/imports/document-parser-process.js'],
    languageOptions: { globals: { process: 'readonly', Buffer: 'readonly', TextDecoder: 'readonly' } },
  },
);
