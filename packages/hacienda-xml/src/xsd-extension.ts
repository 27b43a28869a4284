// The code-list additions of the 2026-04-22 revision of the Anexos (REFERENCE §7.10, §11.3), mandatory
// since 2026-11-01, which the published v4.4 XSDs do not enumerate yet: Nota 9 códigos de referencia 13–17
// and Nota 10 TipoDocIR 19 (FEE) and 20 (REP). Validators apply them to the official schema text in memory
// (the XSD files are never edited or copied, docs/decisions/0010); when Hacienda publishes XSDs that carry
// them, the extension adds nothing.

/** simpleType name → the values the 2026-04 revision adds to its enumeration. */
export const XSD_ENUMERATION_ADDITIONS: Readonly<Record<string, readonly string[]>> = {
  CodigoReferenciaType: ['13', '14', '15', '16', '17'],
  TipoDocReferenciaType: ['19', '20'],
};

/**
 * The schema text with the additions' values appended to the named simpleTypes' enumerations (values
 * already present are not repeated) and, when `importDir` is given, relative schemaLocations made absolute
 * to it (the text is then compiled from a pipe, not from its own directory).
 */
export function extendXsdText(
  xsd: string,
  options: { additions?: Readonly<Record<string, readonly string[]>>; importDir?: string } = {},
): string {
  let text = xsd;
  for (const [typeName, values] of Object.entries(options.additions ?? XSD_ENUMERATION_ADDITIONS)) {
    const start = text.indexOf(`<xs:simpleType name="${typeName}"`);
    if (start < 0) continue;
    const end = text.indexOf('</xs:restriction>', start);
    if (end < 0) continue;
    const block = text.slice(start, end);
    const missing = values.filter((v) => !block.includes(`<xs:enumeration value="${v}"`));
    const inserted = missing.map((v) => `<xs:enumeration value="${v}"/>`).join('');
    text = text.slice(0, end) + inserted + text.slice(end);
  }
  if (options.importDir !== undefined) {
    const dir = options.importDir.replace(/\/+$/, '');
    text = text.replace(
      /schemaLocation="([^"/:]+\.xsd)"/g,
      (_m, file: string) => `schemaLocation="${dir}/${file}"`,
    );
  }
  return text;
}
