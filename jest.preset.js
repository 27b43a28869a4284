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
    // A ceiling against hangs, not a speed check (benchmarks measure speed): a suite's setup that starts
    // services and creates embedded clusters took over 30 s on a 2-core CI machine at load 15-30.
    testTimeout: 90000,
    setupFiles: [path.join(__dirname, 'jest.setup.js')],
    // Under CI, each test file is also named as it starts: a hung file is then the log's last one named.
    ...(process.env.CI === 'true'
      ? { reporters: ['default', path.join(__dirname, 'scripts', 'jest-progress-reporter.js')] }
      : {}),
    ...overrides,
  };
};
