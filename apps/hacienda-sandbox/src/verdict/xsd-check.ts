// Level 1 of Hacienda's validation (REFERENCE §9): the document against its official v4.4 XSD, with
// xmllint (libxml2) in a child process. Each schema error becomes a −99 finding with xmllint's text, as
// Hacienda reports its Xerces text.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CODES, type Finding } from './findings';

export interface XsdValidator {
  /** Undefined when the XSD or xmllint is not available (the check is then skipped). */
  validate(xml: string, xsdFile: string): Promise<Finding[] | undefined>;
  readonly available: boolean;
}

let xmllintPresent: boolean | undefined;

function hasXmllint(): Promise<boolean> {
  if (xmllintPresent !== undefined) return Promise.resolve(xmllintPresent);
  return new Promise((resolve) => {
    execFile('xmllint', ['--version'], (err) => {
      xmllintPresent = !err;
      resolve(xmllintPresent);
    });
  });
}

export function createXsdValidator(xsdDir: string | undefined): XsdValidator {
  const available = !!xsdDir && existsSync(xsdDir);
  return {
    available,
    async validate(xml, xsdFile) {
      if (!xsdDir || !available) return undefined;
      const schema = join(xsdDir, xsdFile);
      if (!existsSync(schema) || !(await hasXmllint())) return undefined;
      return new Promise<Finding[]>((resolve, reject) => {
        const child = execFile(
          'xmllint',
          ['--noout', '--nonet', '--schema', schema, '-'],
          { maxBuffer: 4 * 1024 * 1024, timeout: 30_000 },
          (err, _stdout, stderr) => {
            if (!err) return resolve([]);
            const lines = stderr
              .split('\n')
              .map((l) => l.trim())
              .filter((l) => l && !/validates$|fails to validate$/.test(l));
            if (!lines.length) return reject(new Error(`xmllint failed: ${err.message}`));
            resolve(
              lines.slice(0, 20).map((l) => ({ code: CODES.schema, text: l.replace(/^-:/, 'linea ') })),
            );
          },
        );
        child.stdin?.end(xml);
      });
    },
  };
}
