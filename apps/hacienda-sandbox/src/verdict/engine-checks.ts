// The verdict pieces that come from the document engine (@cr/hacienda-xml): the XAdES-EPES signature
// check (digests, signature value, SignedProperties, policy present) and the signer of the sandbox's
// MensajeHacienda, made with the sandbox's own "Hacienda" seal.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import {
  type SigningKey,
  buildMensajeHacienda,
  describeCertificate,
  verifySignedXml,
} from '@cr/hacienda-xml';
import type { KeyMaterial } from '../certificate-authority';
import type { VerdictCheck } from './checks';
import { CODES } from './findings';
import type { ResponseSigner } from './run-verdict';
import { UnprocessableXmlError } from './parse-comprobante';

/** Failures that mean the signature cannot be processed at all (→ `error`), not that it is wrong. */
const UNPROCESSABLE = new Set(['malformed_xml', 'no_signature', 'no_certificate', 'invalid_certificate']);

export const signatureCheck: VerdictCheck = {
  name: 'signature',
  run({ doc }) {
    // The verdict's own parse of the document: read, never changed, by the verification.
    const result = verifySignedXml(doc.xml, { requirePolicy: true, parsed: doc.doc });
    const fatal = result.findings.find((f) => f.severity === 'error' && UNPROCESSABLE.has(f.code));
    if (fatal) throw new UnprocessableXmlError(`La firma no se puede procesar: ${fatal.message}`);
    return result.findings
      .filter((f) => f.severity === 'error')
      .map((f) => ({
        code: CODES.firma,
        text:
          f.code === 'no_policy'
            ? 'La firma del documento no tiene el Policy Id'
            : `La firma del comprobante no es válida (${f.code}): ${f.message}`,
      }));
  },
};

export function signingKeyFrom(material: KeyMaterial): SigningKey {
  const der = new X509Certificate(material.certPem).raw;
  return { ...describeCertificate(der), privateKey: createPrivateKey(material.keyPem) };
}

export function createResponseSigner(hacienda: KeyMaterial): ResponseSigner {
  const key = signingKeyFrom(hacienda);
  return (content) =>
    buildMensajeHacienda({
      clave: content.clave,
      nombreEmisor: content.nombreEmisor,
      tipoIdentificacionEmisor: content.tipoIdentificacionEmisor,
      numeroCedulaEmisor: content.numeroCedulaEmisor,
      ...(content.nombreReceptor ? { nombreReceptor: content.nombreReceptor } : {}),
      ...(content.tipoIdentificacionReceptor
        ? { tipoIdentificacionReceptor: content.tipoIdentificacionReceptor }
        : {}),
      ...(content.numeroCedulaReceptor ? { numeroCedulaReceptor: content.numeroCedulaReceptor } : {}),
      mensaje: content.mensaje,
      texto: content.texto,
      detalles: content.findings.map((f) => ({ codigo: f.code, mensaje: f.text, fila: 0, columna: 0 })),
      ...(content.montoTotalImpuesto ? { montoTotalImpuesto: content.montoTotalImpuesto } : {}),
      totalFactura: content.totalFactura,
      key,
      // Hacienda signs its answers without a signer role (REFERENCE §5.2).
      sign: { claimedRole: null },
    });
}
