module.exports = require('../../jest.preset.js')(__dirname, { testTimeout: 180000 });
