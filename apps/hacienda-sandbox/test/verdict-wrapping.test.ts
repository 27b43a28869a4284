// The certificate the sandbox judges is the one the signature verifies with (KeyInfo's), never the first
// X509Certificate anywhere under ds:Signature: a ds:Object is outside what the signature covers, so anyone
// can put one before KeyInfo holding another taxpayer's (public) certificate. A signer whose own certificate
// names someone else than the Emisor must be told apart however the signature is arranged.
import { buildSignedDocument, formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { ISSUER, invoice } from '@cr/hacienda-xml/src/testing/mothers';
import { CODES } from '../src/verdict/findings';
import { tokenFor } from './documents';
import { type Harness, startHarness } from './sandbox-harness';
import { SIGNED_AT, issueKey, submit } from './verdict-support';

let strict: Harness;
let auth: string;

const issued = (identificacion: string, nombre: string) => issueKey(strict.app, identificacion, nombre);

beforeAll(async () => {
  strict = await startHarness();
  auth = await tokenFor(strict.app);
}, 120_000);
afterAll(async () => {
  await strict.close();
});

describe('the signer’s certificate', () => {
  it('when another taxpayer’s certificate sits in a ds:Object before KeyInfo, then the signer is still judged by its own: rechazado for the emisor', async () => {
    const victim = await issued(ISSUER.numeroIdentificacion, ISSUER.nombre);
    const signer = await issued('3101000001', 'OTRA EMPRESA SOCIEDAD ANONIMA');
    const { xml } = buildSignedDocument({
      document: invoice({ numeroReferencia: 41, fechaEmision: formatCostaRicaDateTime(SIGNED_AT) }),
      issuer: ISSUER,
      key: signer,
      now: SIGNED_AT,
    });
    const decoy = `<ds:Object><ds:X509Data><ds:X509Certificate>${victim.certificateDer.toString('base64')}</ds:X509Certificate></ds:X509Data></ds:Object>`;
    expect(xml).toContain('<ds:KeyInfo');
    const wrapped = xml.replace('<ds:KeyInfo', `${decoy}<ds:KeyInfo`);
    const { status, mensaje } = await submit(strict, auth, wrapped);
    expect(status['ind-estado']).toBe('rechazado');
    // The misplaced ds:Object is an XSD error too; the point is the certificate's verdict beside it.
    expect(mensaje?.detalles.map((d) => d.codigo)).toContain(CODES.certificadoEmisor);
  });
});
