// Lint rules: the recommended sets of ESLint and typescript-eslint; formatting is prettier's job.
import eslint from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'bench/results/', 'test-results/', 'coverage/', 'test/support/api-types.ts'] },
  eslint.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `_` marks a parameter or binding kept for its position or to drop a property.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Wiring declares a binding that a closure reads before the value it will hold exists.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests take answers as untyped JSON on purpose: the assertions are the types.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.cjs', '**/*.mjs', 'bin/**'],
    languageOptions: {
      globals: {
        URLSearchParams: 'readonly',
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
      },
    },
  },
  prettier,
);
