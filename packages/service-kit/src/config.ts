// Settings come from the environment and are validated at start: a missing or malformed setting stops the
// process with a message naming it. Schemas are TypeBox objects; values are coerced from strings.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TObject } from '@sinclair/typebox';

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

// A private ajv: config needs string→number/boolean coercion and defaults, which the contracts' instance
// must never do to client input.
const configAjv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true, strict: false });
addFormats(configAjv);

export function loadConfig<S extends TObject>(
  schema: S,
  env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env,
): Static<S> {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const raw = env[key];
    if (raw !== undefined && raw !== '') input[key] = raw;
  }
  const check = configAjv.compile(schema);
  if (!check(input)) {
    const problems = (check.errors ?? []).map((e) => {
      const name =
        e.keyword === 'required'
          ? String((e.params as { missingProperty: string }).missingProperty)
          : e.instancePath.replace(/^\//, '');
      return `${name}: ${e.keyword === 'required' ? 'is required' : e.message}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  }
  return input as Static<S>;
}
