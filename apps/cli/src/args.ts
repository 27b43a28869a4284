// Option parsing on node:util's parseArgs; any mistake becomes a UsageError (exit 2).
import { readFileSync } from 'node:fs';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './exit-codes';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

export function parse(args: string[], options: OptionSpec): Parsed {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as Parsed['values'], positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function positional(parsed: Parsed, index: number, name: string): string {
  const value = parsed.positionals[index];
  if (!value) throw new UsageError(`missing <${name}>`);
  return value;
}

export function str(parsed: Parsed, name: string): string | undefined {
  const v = parsed.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A JSON file as an object; a missing or malformed file is a usage error naming it. */
export function readJsonFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const value = JSON.parse(text) as unknown;
    if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
    return value as Record<string, unknown>;
  } catch (err) {
    throw new UsageError(`${file}: ${(err as Error).message}`);
  }
}

export function readBinaryFile(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new UsageError(`${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
