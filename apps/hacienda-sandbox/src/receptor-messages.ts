// POST /recepcion with consecutivoReceptor: a receiver's MensajeReceptor (REFERENCE §4.2, §6.2). What
// Hacienda refuses at once (400 + X-Error-Cause): a consecutivo that is not 20 digits of type 05/06/07,
// an XML that is not a MensajeReceptor, a body that does not match it (clave, consecutivo, parties) and a
// repeat of the same message. The rest (XSD, signature, the answered document) is the asynchronous verdict.
// The message is stored under Hacienda's status id `<clave>-<consecutivoReceptor>`.
import type { SandboxRecepcionRequest } from '@cr/contracts';
import type { AppError, Db } from '@cr/service-kit';
import type { Element } from '@xmldom/xmldom';
import { parseXmlDocument, UnprocessableXmlError } from './verdict/parse-comprobante';

const stripZeros = (id: string | undefined) => (id ?? '').replace(/^0+/, '');

function childText(root: Element, name: string): string | undefined {
  for (let n = root.firstChild; n; n = n.nextSibling) {
    if (n.nodeType === 1 && (n as Element).localName === name) return (n.textContent ?? '').trim();
  }
  return undefined;
}

/** Stores the message in `recibido`; returns its status id. Throws `cause(...)` for a refusal. */
export async function receiveReceptorMessage(
  db: Db,
  body: SandboxRecepcionRequest,
  xml: string,
  base64: string,
  username: string,
  cause: (message: string) => AppError,
): Promise<string> {
  const consecutivo = body.consecutivoReceptor ?? '';
  if (!/^\d{20}$/.test(consecutivo) || !['05', '06', '07'].includes(consecutivo.slice(8, 10))) {
    throw cause(`consecutivoReceptor ${consecutivo} no es válido: 20 dígitos de tipo 05, 06 o 07`);
  }
  if (!body.receptor) throw cause('El mensaje de receptor requiere el receptor');
  let root: Element;
  try {
    root = parseXmlDocument(xml).documentElement as unknown as Element;
  } catch (err) {
    if (err instanceof UnprocessableXmlError)
      throw cause(`comprobanteXml no contiene un XML válido: ${err.message}`);
    throw err;
  }
  if (root.localName !== 'MensajeReceptor') {
    throw cause(`comprobanteXml debe ser un MensajeReceptor, no ${root.localName}`);
  }
  if (childText(root, 'Clave') !== body.clave) {
    throw cause(`La clave del mensaje (${body.clave}) no coincide con la Clave del MensajeReceptor`);
  }
  if (childText(root, 'NumeroConsecutivoReceptor') !== consecutivo) {
    throw cause('consecutivoReceptor no coincide con NumeroConsecutivoReceptor del MensajeReceptor');
  }
  const tipoMensaje = { '1': '05', '2': '06', '3': '07' }[childText(root, 'Mensaje') ?? ''];
  if (tipoMensaje !== consecutivo.slice(8, 10)) {
    throw cause(`El tipo del consecutivo (${consecutivo.slice(8, 10)}) no corresponde al Mensaje`);
  }
  if (
    stripZeros(childText(root, 'NumeroCedulaReceptor')) !== stripZeros(body.receptor.numeroIdentificacion)
  ) {
    throw cause('El receptor del mensaje no coincide con NumeroCedulaReceptor');
  }
  if (stripZeros(childText(root, 'NumeroCedulaEmisor')) !== stripZeros(body.emisor.numeroIdentificacion)) {
    throw cause('El emisor del mensaje no coincide con NumeroCedulaEmisor');
  }
  const id = `${body.clave}-${consecutivo}`;
  const inserted = await db.query(
    `INSERT INTO documents (clave, fecha, emisor_tipo, emisor_numero, receptor_tipo, receptor_numero,
       consecutivo_receptor, callback_url, username, comprobante_xml, estado, kind, tipo, referenced_clave)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'recibido', 'mensaje_receptor', $11, $12)
     ON CONFLICT (clave) DO NOTHING`,
    [
      id,
      body.fecha,
      body.emisor.tipoIdentificacion,
      body.emisor.numeroIdentificacion,
      body.receptor.tipoIdentificacion,
      body.receptor.numeroIdentificacion,
      consecutivo,
      body.callbackUrl ?? null,
      username,
      base64,
      consecutivo.slice(8, 10),
      body.clave,
    ],
  );
  if (!inserted.rowCount) {
    throw cause(`El mensaje receptor con la Clave [${id}] ya fue recibido anteriormente.`);
  }
  return id;
}
