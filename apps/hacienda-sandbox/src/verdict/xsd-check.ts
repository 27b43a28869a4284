// Level 1 of Hacienda's validation (REFERENCE §9): the document against its official v4.4 XSD, with
// xmllint (@cr/xsd), extended in memory with the 2026-04 reference codes Hacienda's validator takes since
// 2026-11-01 (docs/decisions/0010). Each schema error becomes a −99 finding with xmllint's text, as
// Hacienda reports its Xerces text.
import { extendXsdText } from '@cr/hacienda-xml';
import { createXsdValidator as createXmllintValidator } from '@cr/xsd';
import { CODES, type Finding } from './findings';

export interface XsdValidator {
  /** Undefined when the XSD or xmllint is not available (the check is then skipped). */
  validate(xml: string, xsdFile: string): Promise<Finding[] | undefined>;
  readonly available: boolean;
}

export function createXsdValidator(xsdDir: string | undefined): XsdValidator {
  const xmllint = createXmllintValidator({
    xsdDir,
    // Recepción bounds the body; the schema check itself takes what arrived.
    maxBytes: 64 * 1024 * 1024,
    timeoutMs: 30_000,
    extendSchema: (text, dir) => extendXsdText(text, { importDir: dir }),
  });
  return {
    available: xmllint.available,
    async validate(xml, xsdFile) {
      const out = await xmllint.validate(xml, xsdFile);
      if (!out) return undefined;
      if (out.valid) return [];
      return out.errors.map((l) => ({ code: CODES.schema, text: l.replace(/^line /, 'linea ') }));
    },
  };
}
