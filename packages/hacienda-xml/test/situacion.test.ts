// The clave's situación (position 42, REFERENCE §2) comes from the document's `situacion`: a point of sale
// that issued a ticket without a connection sends it later as situación 3, the only one whose FechaEmision
// may be earlier than Hacienda's reception; 1 (normal) when the document says nothing.
import { Clave, DocumentError, buildSignedDocument, openP12 } from '../src';
import { ISSUER, invoice } from '../src/testing/mothers';
import { makeTestP12 } from '../src/testing/test-certificate';

const { p12, pin } = makeTestP12();
const key = openP12(p12, pin);
const NOW = new Date('2026-05-26T18:31:00Z');

const build = (extra: Record<string, unknown>) =>
  buildSignedDocument({ document: { ...invoice(), ...extra }, issuer: ISSUER, key, now: NOW });

describe('the situación of the clave', () => {
  it('when the document names no situacion, then the clave is situación 1 (normal)', () => {
    expect(build({}).clave[41]).toBe('1');
  });

  it.each(['2', '3'])('when the document says situacion %s, then the clave carries it', (situacion) => {
    const signed = build({ situacion });

    expect(signed.clave[41]).toBe(situacion);
    expect(Clave.parse(signed.clave).parts.situacion).toBe(Number(situacion));
    expect(signed.xml).toContain(`<Clave>${signed.clave}</Clave>`);
  });

  it('when the situacion is not one of Hacienda’s, then the document is refused naming the field', () => {
    let refused: unknown;
    try {
      build({ situacion: '4' });
    } catch (err) {
      refused = err;
    }

    expect(refused).toBeInstanceOf(DocumentError);
    expect((refused as DocumentError).issues.map((i) => i.path)).toEqual(['situacion']);
  });
});
