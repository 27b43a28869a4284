// Level 1 of Hacienda's validation (REFERENCE §9): the document against its official v4.4 XSD, with
// libxml2 (@cr/xsd, in process), extended in memory with the 2026-04 reference codes Hacienda's validator
// takes since 2026-11-01 (docs/decisions/0010). Each schema error becomes a −99 finding with libxml2's text, as
// Hacienda reports its Xerces text.
import { extendXsdText } from '@cr/hacienda-xml';
import { createXsdValidator as createLibxml2Validator } from '@cr/xsd';
import { CODES, type Finding } from './findings';

export interface XsdValidator {
  /** Undefined when the XSD is not available (the check is then skipped). */
  validate(xml: string, xsdFile: string): Promise<Finding[] | undefined>;
  readonly available: boolean;
}

/** `onUnavailable` hears of a schema that cannot be used (it does not compile): the check is then skipped. */
export function createXsdValidator(
  xsdDir: string | undefined,
  onUnavailable?: (xsdFile: string, error: Error) => void,
): XsdValidator {
  const libxml2 = createLibxml2Validator({
    xsdDir,
    ...(onUnavailable ? { onUnavailable } : {}),
    // Recepción bounds the body; the schema check itself takes what arrived.
    maxBytes: 64 * 1024 * 1024,
    extendSchema: (text, dir) => extendXsdText(text, { importDir: dir }),
  });
  return {
    available: libxml2.available,
    async validate(xml, xsdFile) {
      const out = await libxml2.validate(xml, xsdFile);
      if (!out) return undefined;
      if (out.valid) return [];
      return out.errors.map((l) => ({ code: CODES.schema, text: l.replace(/^line /, 'linea ') }));
    },
  };
}
