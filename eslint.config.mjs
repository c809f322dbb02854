// Plugin and core code (src/) follow eslint-plugin-obsidianmd's recommended config with no
// suppressions. The core must stay portable: no obsidian, no Node built-ins, no shells.
// The runner, tests and scripts run on Node and use typescript-eslint's recommended rules.
import { defineConfig, globalIgnores } from 'eslint/config';
import obsidianmd from 'eslint-plugin-obsidianmd';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const NODE_BUILTINS = ['node:*', 'fs', 'path', 'os', 'child_process', 'crypto', 'util', 'url', 'events', 'stream', 'worker_threads', 'http', 'https', 'net', 'zlib', 'buffer', 'process'];

export default defineConfig([
  globalIgnores(['node_modules/', 'dist/', 'main.js', 'coverage/', '.work/', 'examples/', 'test/fixtures/']),
  {
    files: ['src/**/*.ts'],
    extends: [...obsidianmd.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.*'] }, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'obsidian', message: 'The core must not depend on Obsidian: reach it through a port (src/core/ports.ts).' }],
          patterns: [
            { group: NODE_BUILTINS, message: 'The core must not use Node built-ins: reach the world through a port (src/core/ports.ts).' },
            { group: ['**/headless/**', '**/plugin/**'], message: 'The core must not import a shell.' },
          ],
        },
      ],
    },
  },
  {
    files: ['headless/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'],
    extends: [tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
]);
