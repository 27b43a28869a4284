// Use case of POST /api/recepcion/documentos/{clave}/respuesta: the receiver accepts (1), partially accepts
// (2) or rejects (3) a received document. The MensajeReceptor is planned against the document (amounts and
// condición del IVA, @cr/hacienda-xml), numbered with the client's numeroReferencia under consecutivo type
// 05/06/07, signed with the receptor issuer's key and stored as a document of its own (tipo_doc 5/6/7,
// clave `<clave>-<consecutivo>`, Hacienda's id of the message) with its submission job: the same jobs,
// retries, token cache, follow-up and webhook as any document. Before it is stored the signed message is
// validated against MensajeReceptor_V4.4.xsd by the gate of every signed document (docs/decisions/0055): a
// refusal is a 400 naming the element, the received document stays unanswered and the number free, as with a
// 422 when the receptor's certificate is out of its validity (certificate-validity.ts). A second answer
// while one is with Hacienda or after Hacienda accepted one is a 409; after Hacienda refused an answer, a new
// one may be sent. The same request again (the same number and body, for the same document) answers what the
// first did, with the answer's state now, as a submission does: a client that lost the first answer may retry.
import { randomBytes, randomUUID } from 'node:crypto';
import { RecepcionRespuestaRequest, type RecepcionRespuestaResponse } from '@cr/contracts';
import {
  Consecutivo,
  HaciendaXmlError,
  TIPO_MENSAJE_RECEPTOR,
  buildMensajeReceptor,
  formatCostaRicaDateTime,
  planMensajeReceptor,
} from '@cr/hacienda-xml';
import { AppError, parseBody } from '@cr/service-kit';
import { ONE_STATEMENT, withTenant } from '../db/with-tenant';
import { hashRequestBody } from '../documents/canonical-hash';
import { type UsedNumber, findByNumber, insertPendingDocument } from '../documents/document-repository';
import {
  type DocumentJobPayload,
  SUBMIT_QUEUE,
  callbackSecretContext,
  callbackTokenHash,
} from '../documents/submit-document';
import { toSigningKey } from '../documents/to-engine-issuer';
import { assertCertificateValidAt } from '../emisor/certificate-validity';
import { checkSignedAgainst } from '../documents/xsd-gate';
import type { RecepcionDeps } from './recepcion-deps';
import { attachAnswer, findReceivedByClave } from './received-repository';

const ACTIVIDAD = /^(\d{4}\.\d|\d{6})$/;

/** The one schema of the three kinds of answer (consecutivo types 05, 06, 07). */
const MENSAJE_RECEPTOR_XSD = 'MensajeReceptor_V4.4.xsd';

/** tipo_doc of an answer: the request style ('1', '3', '4') of consecutivo types 05, 06, 07. */
export const TIPO_DOC_OF_MENSAJE: Record<1 | 2 | 3, string> = { 1: '5', 2: '6', 3: '7' };

export interface AnsweredReceived {
  data: RecepcionRespuestaResponse['data'];
  /** False when this was the same request again, answered from the stored answer. */
  created: boolean;
}

export async function answerReceived(
  deps: RecepcionDeps,
  input: { tenantId: string; clave: string; body: unknown },
): Promise<AnsweredReceived> {
  const { tenantId, clave } = input;
  const body = parseBody(RecepcionRespuestaRequest, input.body);
  const requestHash = hashRequestBody(input.body ?? null);
  const received = await withTenant(
    deps.db,
    tenantId,
    (tx) => findReceivedByClave(tx, tenantId, clave),
    ONE_STATEMENT,
  );
  if (!received) throw new AppError('not_found', `clave: received document ${clave} not found`);
  const material = await deps.signing.load({ tenantId, identificacion: received.receptor });
  const mensaje = body.mensaje;
  const number = {
    emisor: material.identificacion,
    sucursal: body.sucursal ?? material.sucursal,
    terminal: body.terminal ?? 1,
    tipoDoc: TIPO_DOC_OF_MENSAJE[mensaje],
    numeroReferencia: body.numeroReferencia,
  };
  const consecutivo = new Consecutivo({
    sucursal: number.sucursal,
    terminal: number.terminal,
    tipo: TIPO_MENSAJE_RECEPTOR[mensaje],
    numero: number.numeroReferencia,
  });
  /** The answer's own clave: the received document's, then the answer's consecutivo. */
  const answerClave = `${clave}-${consecutivo.value}`;
  /** The stored answer when `used` is this very request's (same document, number and body). */
  const replayOf = (used: UsedNumber | undefined): AnsweredReceived | undefined =>
    used && used.request_hash === requestHash && used.clave === answerClave
      ? { data: { clave, mensaje, consecutivo: consecutivo.value, estado: used.estado }, created: false }
      : undefined;
  if (received.respuesta_document_id) {
    const used = await withTenant(
      deps.db,
      tenantId,
      (tx) => findByNumber(tx, tenantId, number),
      ONE_STATEMENT,
    );
    const replay = replayOf(used);
    if (replay) return replay;
  }
  if (received.respuesta_document_id && received.estado !== 'pendiente') {
    throw new AppError(
      'conflict',
      `clave: document ${clave} was already answered (consecutivo ${received.respuesta_consecutivo}, ${received.respuesta_estado} at Hacienda)`,
    );
  }
  const now = deps.now();
  // The receptor signs its answer: with a certificate out of its validity Hacienda would reject the message,
  // so it is refused before it is numbered and the number stays free for the answer after the renewal.
  assertCertificateValidAt(material.certificate, now, {
    field: 'receptor',
    identificacion: material.identificacion,
  });
  const plan = planMensajeReceptor(
    {
      clave,
      emisorNumero: received.emisor_numero,
      totalComprobante: received.total,
      ...(received.impuestos === null ? {} : { totalImpuesto: received.impuestos }),
    },
    {
      mensaje: body.mensaje,
      ...(body.detalleMensaje === undefined ? {} : { detalleMensaje: body.detalleMensaje }),
      ...(body.codigoActividad === undefined ? {} : { codigoActividad: body.codigoActividad }),
      ...(body.condicionImpuesto === undefined ? {} : { condicionImpuesto: body.condicionImpuesto }),
      ...(body.montoTotalImpuestoAcreditar === undefined
        ? {}
        : { montoTotalImpuestoAcreditar: body.montoTotalImpuestoAcreditar }),
      ...(body.montoTotalDeGastoAplicable === undefined
        ? {}
        : { montoTotalDeGastoAplicable: body.montoTotalDeGastoAplicable }),
    },
    now,
  );
  if (!plan.ok) {
    throw new AppError('bad_request', plan.issues.map((i) => `${i.path}: ${i.reason}`).join('; '), {
      details: plan.issues,
    });
  }
  let xml: string;
  try {
    xml = buildMensajeReceptor(
      {
        ...plan.value,
        // The receiver's activity for the credit; the issuer's registered one unless the client names it.
        ...(plan.value.codigoActividad || mensaje === 3 || !ACTIVIDAD.test(String(material.codigoActividad))
          ? {}
          : { codigoActividad: String(material.codigoActividad) }),
        numeroCedulaReceptor: material.identificacion,
        numeroConsecutivoReceptor: consecutivo.value,
      },
      toSigningKey(material),
      { now },
    );
  } catch (err) {
    if (err instanceof HaciendaXmlError) throw new AppError('bad_request', err.message);
    throw err;
  }
  await checkSignedAgainst(deps, MENSAJE_RECEPTOR_XSD, xml);
  const id = randomUUID();
  const token = randomBytes(32).toString('base64url');
  const fecha = formatCostaRicaDateTime(now);
  const payload: DocumentJobPayload = { tenantId, documentId: id };
  const submitJob = { queue: SUBMIT_QUEUE, tenant: tenantId, key: `submit:${id}`, payload };
  // Everything below is one transaction: a conflict after the insert takes the document and its job back.
  const replay = await withTenant(deps.db, tenantId, async (tx) => {
    const used = await findByNumber(tx, tenantId, number);
    if (used) {
      const earlier = replayOf(used);
      if (earlier) return earlier;
      throw new AppError(
        'conflict',
        `numeroReferencia: consecutivo ${consecutivo.value} was already used by ${used.clave}`,
      );
    }
    const outcome = await insertPendingDocument(
      tx,
      tenantId,
      {
        id,
        ...number,
        clave: answerClave,
        emisorTipo: String(material.tipoIdentificacion).padStart(2, '0'),
        consecutivo: consecutivo.value,
        fechaEmision: now,
        fechaEmisionText: fecha,
        ambiente: material.ambiente,
        // The message goes to the supplier: Hacienda's body names it as emisor, us as receptor.
        receptor: { tipo: received.emisor_tipo, numero: received.emisor_numero },
        folioType: 'RECEIVER_MESSAGE',
        requestHash,
        xml,
        totals: {
          totalFactura: plan.value.totalFactura,
          ...(plan.value.montoTotalImpuesto ? { montoTotalImpuesto: plan.value.montoTotalImpuesto } : {}),
        },
        callbackTokenHash: callbackTokenHash(token),
        callbackTokenSealed: deps.secrets.seal(token, callbackSecretContext(tenantId, id)),
      },
      submitJob,
    );
    if (outcome !== 'inserted') {
      // A concurrent twin took the number and committed; a statement of its own sees it (nothing was written).
      const twin = replayOf(await findByNumber(tx, tenantId, number));
      if (twin) return twin;
      throw new AppError('conflict', `numeroReferencia: consecutivo ${consecutivo.value} is already used`);
    }
    await tx.query(
      'UPDATE documents SET recibido_id = $3, clave_recibida = $4 WHERE tenant_id = $1 AND id = $2',
      [tenantId, id, received.id, clave],
    );
    if (!(await attachAnswer(tx, tenantId, received.id, received.respuesta_document_id, id))) {
      throw new AppError(
        'conflict',
        `clave: document ${clave} was answered at the same time by another request`,
      );
    }
    return undefined;
  });
  if (replay) return replay;
  deps.wakeWorker?.();
  deps.logger.info('receiver message signed', { tenantId, clave, mensaje, consecutivo: consecutivo.value });
  return { data: { clave, mensaje, consecutivo: consecutivo.value, estado: 'pendiente' }, created: true };
}
