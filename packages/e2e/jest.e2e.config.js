// End-to-end tests only (`*.e2e.test.ts`): real processes (nginx, the apps) on loopback ports, one at a time.
module.exports = require('../../jest.preset.js')(__dirname, {
  testMatch: ['<rootDir>/test/**/*.e2e.test.ts'],
  testTimeout: 60000,
});
