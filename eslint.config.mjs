import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'bench/node_modules/',
      '**/.tmp/',
      '*.js',
      '*.mjs',
      // Pages' scripts an example serves as they are (plain browser JavaScript, no build step).
      'examples/*/public/',
      // The docs site: VitePress's build output and cache, and its config (plain JavaScript).
      'docs/.vitepress/cache/',
      'docs/.vitepress/dist/',
      'docs/.vitepress/config.mjs',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      // `any` switches the checker off: `unknown` and narrowing, or a precise type, instead.
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unsafe-assignment': 'error',
      '@typescript-eslint/no-unsafe-member-access': 'error',
      '@typescript-eslint/no-unsafe-argument': 'error',
      '@typescript-eslint/no-unsafe-return': 'error',
      '@typescript-eslint/no-unsafe-call': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Workflow and step methods are async by contract, whether or not their bodies await.
    files: ['test/**/*.ts', 'examples/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // Tests and benchmarks poke at internals, fake drivers and raw query results on purpose
    // (about 230 findings in test/, 110 in bench/, nearly all reads of untyped rows and mocks);
    // typing them buys little. src/ and examples/ (what users copy) keep the rules on.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    // Issue 23's targets for the runtime and the store: a function reads in one screen, a file in one sitting.
    files: ['src/runtime/**/*.ts', 'src/store/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 300 }],
    },
  },
  prettier,
);
