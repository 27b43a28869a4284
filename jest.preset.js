// Shared jest settings: TypeScript through SWC (fast, no type-check; `pnpm typecheck` does that),
// one JSON result file per package so .ci/run can print a single closing line for the whole repo.
const path = require('node:path');

/** @param {string} dir the package directory */
module.exports = function jestPreset(dir, overrides = {}) {
  return {
    rootDir: dir,
    testEnvironment: 'node',
    transform: {
      '^.+\\.(t|j)s$': [
        require.resolve('@swc/jest'),
        { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
      ],
    },
    testMatch: ['<rootDir>/src/**/*.test.ts', '<rootDir>/test/**/*.test.ts'],
    moduleFileExtensions: ['ts', 'js', 'json'],
    testTimeout: 30000,
    setupFiles: [path.join(__dirname, 'jest.setup.js')],
    ...overrides,
  };
};
