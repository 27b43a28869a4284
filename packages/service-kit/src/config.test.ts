import { Type } from '@sinclair/typebox';
import { ConfigError, loadConfig } from './config';

const Schema = Type.Object({
  PORT: Type.Integer({ default: 4000, minimum: 0, maximum: 65535 }),
  AUTH_ISSUER: Type.String({ format: 'uri', minLength: 1 }),
  FLAG: Type.Boolean({ default: false }),
});

describe('loadConfig', () => {
  it('when settings are present, then they are coerced and defaults applied', () => {
    expect(loadConfig(Schema, { AUTH_ISSUER: 'http://x', FLAG: 'true' })).toEqual({
      PORT: 4000,
      AUTH_ISSUER: 'http://x',
      FLAG: true,
    });
  });

  it('when a setting is missing, then the error names it', () => {
    expect(() => loadConfig(Schema, {})).toThrow(ConfigError);
    expect(() => loadConfig(Schema, {})).toThrow(/AUTH_ISSUER: is required/);
  });

  it('when a setting is malformed, then the error names it', () => {
    expect(() => loadConfig(Schema, { AUTH_ISSUER: 'x', PORT: 'abc' })).toThrow(/PORT/);
  });
});
