import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSignedDocument } from './build-document';
import { openP12 } from './signing-key';
import { FE_REFERENCE, ISSUER, debitNote } from './testing/mothers';
import { makeTestP12 } from './testing/test-certificate';
import { XSD_DIR, checkTools, xsdErrors } from './testing/tools';
import { XSD_ENUMERATION_ADDITIONS, extendXsdText } from './xsd-extension';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';

const tools = checkTools(['xmllint']);

describe('XSD extension with the 2026-04 reference codes', () => {
  it('when a schema is extended, then the new codes join the enumerations once and imports become absolute', () => {
    const xsd =
      '<xs:import schemaLocation="xmldsig-core-schema.xsd"/><xs:simpleType name="CodigoReferenciaType"><xs:restriction base="xs:string"><xs:enumeration value="01"/><xs:enumeration value="13"/></xs:restriction></xs:simpleType>';
    const out = extendXsdText(xsd, { importDir: '/x/xsd/' });
    expect(out).toContain('schemaLocation="/x/xsd/xmldsig-core-schema.xsd"');
    for (const v of XSD_ENUMERATION_ADDITIONS.CodigoReferenciaType!)
      expect(out.split(`<xs:enumeration value="${v}"/>`).length - 1).toBe(1);
  });

  it('when a debit note uses code 14, then the official XSD refuses it and the extended one accepts it', () => {
    if (!tools.ok) return;
    const { p12, pin } = makeTestP12();
    const signed = buildSignedDocument({
      document: debitNote({ informacionReferencia: { ...FE_REFERENCE, codigo: '14' } }),
      issuer: ISSUER,
      key: openP12(p12, pin),
      now: new Date('2026-05-26T18:31:00Z'),
    });
    const dir = mkdtempSync(path.join(tmpdir(), 'xsd-ext-'));
    try {
      const file = path.join(dir, 'nd.xml');
      writeFileSync(file, signed.xml);
      const official = spawnSync(
        'xmllint',
        ['--noout', '--nonet', '--schema', path.join(XSD_DIR, 'NotaDebitoElectronica_V4.4.xsd'), file],
        { encoding: 'utf8' },
      );
      expect(official.status).not.toBe(0);
      expect(official.stderr).toMatch(/Codigo/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(xsdErrors(signed.xml, 'NotaDebitoElectronica_V4.4.xsd')).toBe('');
    // The official files stay as published: the extension lives only in memory.
    expect(readFileSync(path.join(XSD_DIR, 'NotaDebitoElectronica_V4.4.xsd'), 'utf8')).not.toContain(
      '<xs:enumeration value="14"/><xs:enumeration value="15"/>',
    );
  });
});
