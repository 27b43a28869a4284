import {
  buildMensajeHacienda,
  parseDetalleMensaje,
  parseMensajeHacienda,
  readMensajeHacienda,
} from './mensaje-hacienda';
import { openP12 } from './signing-key';
import { makeTestP12 } from './testing/test-certificate';
import { checkTools, xmlsecErrors, xsdErrors } from './testing/tools';
import { HaciendaXmlError } from './errors';

const tools = checkTools(['xmllint', 'xmlsec1']);
const { p12, pin } = makeTestP12({
  subjectSerial: 'CPJ-2-100-042005',
  commonName: 'MINISTERIO DE HACIENDA SANDBOX',
});
const key = openP12(p12, pin);
const CLAVE = '50631082600310181576400100001030000001522114249307';

describe('MensajeHacienda', () => {
  it('when the sandbox builds a rejection with findings, then it validates, verifies and parses back', () => {
    const xml = buildMensajeHacienda({
      clave: CLAVE,
      nombreEmisor: 'ONVO COSTA RICA SOCIEDAD ANONIMA',
      tipoIdentificacionEmisor: '02',
      numeroCedulaEmisor: '3101815764',
      nombreReceptor: 'PIXDEA & ASOCIADOS',
      tipoIdentificacionReceptor: '02',
      numeroCedulaReceptor: '3101779527',
      mensaje: 3,
      detalles: [
        { codigo: -37, mensaje: 'La ubicación del emisor no coincide <RUT>', fila: 0, columna: 0 },
        { codigo: -505, mensaje: 'Tarifa no coincide', fila: 0, columna: 0 },
      ],
      montoTotalImpuesto: '3605.2',
      totalFactura: '31337.54',
      key,
    });
    const { message, verification } = readMensajeHacienda(xml);
    expect(verification.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(message).toMatchObject({
      clave: CLAVE,
      mensaje: 3,
      estadoMensaje: 'Rechazado',
      nombreReceptor: 'PIXDEA & ASOCIADOS',
      montoTotalImpuesto: '3605.20000',
      totalFactura: '31337.54000',
    });
    expect(message.detalles).toEqual([
      { codigo: -37, mensaje: 'La ubicación del emisor no coincide <RUT>', fila: 0, columna: 0 },
      { codigo: -505, mensaje: 'Tarifa no coincide', fila: 0, columna: 0 },
    ]);
    expect(message.detalleMensaje).toContain('\r\n');
    expect(readMensajeHacienda(xml.replace('Tarifa no', 'Tarifa si')).verification.valid).toBe(false);
    if (!tools.ok) return;
    expect(xsdErrors(xml, 'MensajeHacienda_V4.4.xsd')).toBe('');
    expect(xmlsecErrors(xml)).toBe('');
  });

  it('when DetalleMensaje has the header and CR LF rows, then each finding is read', () => {
    expect(
      parseDetalleMensaje('.\r\ncodigo, mensaje, fila, columna\r\n-37, "texto, con coma", 0, 0'),
    ).toEqual([{ codigo: -37, mensaje: 'texto, con coma', fila: 0, columna: 0 }]);
  });

  it('when the message is malformed, then a typed error names the problem', () => {
    expect(() => parseMensajeHacienda('<x')).toThrow(HaciendaXmlError);
    expect(() => parseMensajeHacienda('<Otro/>')).toThrow(/not MensajeHacienda/);
    expect(() => parseMensajeHacienda(`<MensajeHacienda><Clave>${CLAVE}</Clave></MensajeHacienda>`)).toThrow(
      /MensajeHacienda has no/,
    );
    // Read and verified from one parse: the refusals are the same.
    expect(() => readMensajeHacienda('<x')).toThrow(/not well-formed XML/);
    expect(() => readMensajeHacienda('<Otro/>')).toThrow(/not MensajeHacienda/);
  });
});
