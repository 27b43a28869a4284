// The speed-ups of the build path must be invisible: each fast path is compared with the slow
// computation it replaces, over generated inputs.
import { DocumentRequest, validate } from '@cr/contracts';
import fc from 'fast-check';
import { fastAccepts, withEnums } from './fast-schema';
import { Dec, toFixedHalfUp } from './money';
import { ISSUER, invoice, line } from './testing/mothers';
import { escapeAttr, escapeText } from './xml-text';

// The regular-expression escaping every string went through before the plain-text fast path.
const cp = (n: number) => `\\u${n.toString(16).padStart(4, '0')}`;
const INVALID = new RegExp(
  `[${cp(0)}-${cp(8)}${cp(0x0b)}${cp(0x0c)}${cp(0x0e)}-${cp(0x1f)}${cp(0xfffe)}${cp(0xffff)}]|[${cp(0xd800)}-${cp(0xdbff)}](?![${cp(0xdc00)}-${cp(0xdfff)}])|(?<![${cp(0xd800)}-${cp(0xdbff)}])[${cp(0xdc00)}-${cp(0xdfff)}]`,
  'g',
);
const TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\r': '&#xD;' };
const ATTR: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '"': '&quot;',
  '\t': '&#x9;',
  '\n': '&#xA;',
  '\r': '&#xD;',
};
const slowText = (v: string) => v.replace(INVALID, '').replace(/[&<>\r]/g, (c) => TEXT[c]!);
const slowAttr = (v: string) => v.replace(INVALID, '').replace(/[&<"\t\n\r]/g, (c) => ATTR[c]!);

const xmlish = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      '&',
      '<',
      '>',
      '"',
      '\t',
      '\n',
      '\r',
      '\u0000',
      '\u001f',
      '\ud800',
      '\udc00',
      '\ufffe',
      'ñ',
      '😀',
    ),
    fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 1 }),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
});

describe('C14N escaping fast path', () => {
  it('when any string is escaped, then the result equals the regular-expression escaping', () => {
    fc.assert(
      fc.property(xmlish, (s) => {
        expect(escapeText(s)).toBe(slowText(s));
        expect(escapeAttr(s)).toBe(slowAttr(s));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('toFixedHalfUp', () => {
  const decimalText = fc.oneof(
    fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 25n }), fc.integer({ min: 0, max: 12 }))
      .map(([neg, digits, scale]) => {
        const s = digits.toString().padStart(scale + 1, '0');
        const text = scale === 0 ? s : `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
        return neg ? `-${text}` : text;
      }),
    fc.constantFrom('-0', '0', '1e21', '1e-8', '-0.000001', '0.000005', '-0.000005', '99999.999995'),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  );
  it('when a decimal is formatted, then the result equals decimal.js toFixed half-up', () => {
    fc.assert(
      fc.property(decimalText, fc.integer({ min: 0, max: 10 }), (text, dp) => {
        const value = new Dec(text);
        expect(toFixedHalfUp(value, dp)).toBe(value.toFixed(dp, Dec.ROUND_HALF_UP));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('enum-based acceptance check', () => {
  it('when the contract schema is converted, then no anyOf made only of constants is left', () => {
    const converted = withEnums(JSON.parse(JSON.stringify(DocumentRequest)));
    let enums = 0;
    let constOnlyAnyOf = 0;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        const o = v as Record<string, unknown>;
        if (Array.isArray(o.enum)) enums++;
        if (Array.isArray(o.anyOf) && o.anyOf.every((b) => b && typeof b === 'object' && 'const' in b))
          constOnlyAnyOf++;
        Object.values(o).forEach(walk);
      }
    };
    walk(converted);
    expect(enums).toBeGreaterThan(10);
    expect(constOnlyAnyOf).toBe(0);
  });

  const valid = invoice({
    detalleServicio: [
      line(1),
      line(2, { codigoTarifa: '10', tarifa: '0', cabys: '2132100000100' }),
      line(3, { exoneracion: { porcentaje: 6.5, tipo: '03', articulo: '11', inciso: 2 } }),
    ],
    informacionReferencia: {
      tipoDocumento: '01',
      numero: '50626052600310295087500100001010000000033159073080',
      fechaEmision: '2026-05-26T12:30:59-06:00',
      codigo: '01',
      razon: 'Factura erronea',
    },
    resumenFactura: {
      codigoTipoMoneda: { codigoMoneda: 'USD', tipoCambio: '510.5' },
      mediosPago: [{ tipoMedioPago: '01' }, { tipoMedioPago: 99, medioPagoOtros: 'SINPE' }],
    },
  });
  // Every path of the valid document, so mutations reach every field, code list included.
  const paths: (string | number)[][] = [];
  const collect = (v: unknown, p: (string | number)[]) => {
    paths.push(p);
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) collect(v[i], [...p, i]);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) collect(x, [...p, k]);
  };
  collect(valid, []);
  const replacement = fc.oneof(
    fc.constantFrom(
      undefined,
      null,
      '',
      '01',
      '1',
      '99',
      'Sp',
      'sp',
      'Unid',
      'm²',
      'CRC',
      'XXX',
      '1234.56',
      '-1',
      1,
      4,
      99,
      0.5,
      true,
      [],
      {},
      ISSUER.numeroIdentificacion,
      '2026-05-26T12:30:59-06:00',
    ),
    fc.string({ maxLength: 4 }),
    fc.integer(),
  );

  it('when a valid document is mutated anywhere, then the fast check accepts exactly what the contract does', () => {
    expect(fastAccepts(DocumentRequest, valid)).toBe(true);
    expect(validate(DocumentRequest, valid).ok).toBe(true);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...paths.slice(1)), replacement), { minLength: 1, maxLength: 3 }),
        (mutations) => {
          const doc = structuredClone(valid) as unknown as Record<string | number, unknown>;
          for (const [path, value] of mutations) {
            let target = doc;
            for (const seg of path.slice(0, -1)) {
              const next = target?.[seg];
              if (next === null || typeof next !== 'object') return;
              target = next as Record<string | number, unknown>;
            }
            const last = path[path.length - 1]!;
            if (value === undefined) delete target[last];
            else target[last] = structuredClone(value);
          }
          expect(fastAccepts(DocumentRequest, doc)).toBe(validate(DocumentRequest, doc).ok);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
