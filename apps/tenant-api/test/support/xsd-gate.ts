// What the tests of the XSD gate (docs/decisions/0055) share: a logger they can read, validators closed after
// the file, a refusal caught as the AppError it is, and a copy of the official XSDs with one limit made
// stricter than the contract's, so that a body the contract accepts reaches the gate and is refused there.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extendXsdText } from '@cr/hacienda-xml';
import { AppError, MemoryTransport, createLogger } from '@cr/service-kit';
import { xsdDir } from '@cr/testkit';
import { type XsdValidator, createXsdValidator } from '@cr/xsd';

export function capturingLogger() {
  const log = new MemoryTransport();
  return { log, logger: createLogger({ service: 'test', level: 'debug', transports: [log] }) };
}

const validators: XsdValidator[] = [];
afterAll(async () => {
  await Promise.all(validators.splice(0).map((v) => v.close()));
});

/** A validator over `dir` extended as the app's (ADR 0010), closed after the test file. */
export function validatorFor(dir: string): XsdValidator {
  const v = createXsdValidator({ xsdDir: dir, extendSchema: (t, d) => extendXsdText(t, { importDir: d }) });
  validators.push(v);
  return v;
}

export async function refusalOf(promise: Promise<void>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

/**
 * A temporary copy of the official XSDs where `pattern` (capturing the text before and after the limit)
 * finds one `xs:maxLength` in `xsdFile` and sets it to `maxLength`. The caller removes the directory.
 */
export function xsdDirWithShorterLimit(xsdFile: string, pattern: RegExp, maxLength: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'xsd-gate-'));
  for (const f of readdirSync(xsdDir()).filter((n) => n.endsWith('.xsd'))) {
    copyFileSync(join(xsdDir(), f), join(dir, f));
  }
  const path = join(dir, xsdFile);
  const text = readFileSync(path, 'utf8');
  const stricter = text.replace(pattern, `$1${maxLength}$2`);
  if (stricter === text) throw new Error(`${xsdFile}: ${pattern} matches nothing`);
  writeFileSync(path, stricter);
  return dir;
}
