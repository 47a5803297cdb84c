import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.txbench/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    // No import circles, type-only ones included: layers import downwards only.
    files: ['src/**/*.ts', 'test/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // Nothing outside workloads/ reaches a particular workload: the CLI, the run path, the results
    // and the reports find workloads through workloads/registry.ts and workloads/workload.ts.
    // bench/ is exempt: it measures TPC-C itself against pgbench's TPC-C scripts.
    files: ['src/**/*.ts'],
    ignores: ['src/workloads/**', 'src/bench/**'],
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            {
              target: './src',
              from: ['./src/workloads/tpcc', './src/workloads/tpcb', './src/workloads/sysbench'],
              message: 'reach workloads through src/workloads/registry.ts and the Workload interface',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['bin/**/*.js'],
    languageOptions: { globals: { process: 'readonly', setTimeout: 'readonly' } },
  },
);
