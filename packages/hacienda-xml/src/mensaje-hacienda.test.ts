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

  it('when DetalleMensaje has findings in any spacing and quoting, then each line is read and the rest skipped', () => {
    const text = [
      'El comprobante fue rechazado:',
      'codigo, mensaje, fila, columna',
      '-53, "La fecha de emisión es posterior", 0, 0',
      '  -37 ,texto, con, comas ,12, 4  ',
      '-1,"",0,0',
      '7, "sin cierre, 1, 2',
      'x, "no es hallazgo", 1, 2',
      '-2, "faltan campos", 1',
    ].join('\n');
    expect(parseDetalleMensaje(text)).toEqual([
      { codigo: -53, mensaje: 'La fecha de emisión es posterior', fila: 0, columna: 0 },
      { codigo: -37, mensaje: 'texto, con, comas', fila: 12, columna: 4 },
      { codigo: -1, mensaje: '', fila: 0, columna: 0 },
      { codigo: 7, mensaje: 'sin cierre', fila: 1, columna: 2 },
    ]);
  });

  it('when a DetalleMensaje line is 100 KB of spaces, then it is read in one pass', () => {
    // A supplier's upload carries this text. The old expression's ambiguous spaces were cubic: 1,000 spaces
    // took 0.5 s, 2,000 took 5 s; 100,000 would have held a thread for days.
    for (const hostile of [`1,${' '.repeat(100_000)}x`, `1,${' '.repeat(50_000)},1${' '.repeat(50_000)}x`])
      expect(parseDetalleMensaje(hostile)).toEqual([]);
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
