import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SigningKey, buildSignedDocument, formatCostaRicaDateTime } from '@cr/hacienda-xml';
import { ISSUER, invoice } from '@cr/hacienda-xml/src/testing/mothers';
import { requireResource, xsdDir } from '@cr/testkit';
import request from 'supertest';
import { CODES } from '../src/verdict/findings';
import { readSample, sampleFiles, tokenFor } from './documents';
import { SIGNED_AT, issueKey, resign, submit } from './verdict-support';
import { type Harness, startHarness } from './sandbox-harness';

const hasTool = (name: string) => spawnSync('which', [name]).status === 0;

function withTemp<T>(files: Record<string, string>, fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'verdict-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('verdicts', () => {
  const have = sampleFiles().length === 3;
  let trusting: Harness;
  let strict: Harness;
  let authTrusting: string;
  let authStrict: string;
  let key: SigningKey;
  let good: string;

  beforeAll(async () => {
    trusting = await startHarness({ env: { SANDBOX_TRUST_ANY_CA: 'true' } });
    strict = await startHarness();
    authTrusting = await tokenFor(trusting.app);
    authStrict = await tokenFor(strict.app);
    key = await issueKey(strict.app, ISSUER.numeroIdentificacion, ISSUER.nombre);
    good = buildSignedDocument({
      document: invoice({ fechaEmision: formatCostaRicaDateTime(SIGNED_AT) }),
      issuer: ISSUER,
      key,
      now: SIGNED_AT,
      codigoSeguridad: '12345678',
    }).xml;
  }, 120_000);
  afterAll(async () => {
    await trusting.close();
    await strict.close();
  });

  it.each(['fe-', 'NC-', 'Comprobante_'])(
    'when the real accepted sample %s is submitted and any CA is trusted, then it is aceptado',
    async (prefix) => {
      if (!requireResource('Hacienda samples', have)) return;
      const { status, mensaje } = await submit(
        trusting,
        authTrusting,
        readSample(sampleFiles().find((f) => f.startsWith(prefix)) as string),
      );
      expect(status['ind-estado']).toBe('aceptado');
      expect(mensaje).toMatchObject({ mensaje: 1, estadoMensaje: 'Aceptado' });
      expect(mensaje?.detalles).toEqual([]);
    },
  );

  it('when a real sample is submitted to a sandbox trusting only its CA, then it is rechazado for the certificate', async () => {
    if (!requireResource('Hacienda samples', have)) return;
    const { mensaje } = await submit(
      strict,
      authStrict,
      readSample(sampleFiles().find((f) => f.startsWith('fe-')) as string),
    );
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles.map((d) => d.codigo)).toEqual([CODES.certificadoNoConfiable]);
  });

  it('when a document signed with a sandbox-issued key is right, then it is aceptado and the answer is valid against the XSD and verifies with xmlsec1', async () => {
    const { status, respuesta, mensaje } = await submit(strict, authStrict, good);
    expect(status['ind-estado']).toBe('aceptado');
    expect(mensaje).toMatchObject({
      mensaje: 1,
      estadoMensaje: 'Aceptado',
      numeroCedulaEmisor: ISSUER.numeroIdentificacion,
    });
    if (
      !requireResource(
        'XSDs, xmllint and xmlsec1',
        existsSync(join(xsdDir(), 'MensajeHacienda_V4.4.xsd')) && hasTool('xmllint') && hasTool('xmlsec1'),
      )
    )
      return;
    withTemp({ 'r.xml': respuesta as string, 'ca.pem': strict.keys.ca.certPem }, (dir) => {
      execFileSync(
        'xmllint',
        ['--noout', '--nonet', '--schema', join(xsdDir(), 'MensajeHacienda_V4.4.xsd'), join(dir, 'r.xml')],
        { stdio: 'pipe' },
      );
      // The chain is checked too: the answer's certificate must lead to the sandbox CA.
      const out = execFileSync(
        'xmlsec1',
        [
          '--verify',
          '--trusted-pem',
          join(dir, 'ca.pem'),
          '--id-attr:Id',
          'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
          '--id-attr:Id',
          'http://www.w3.org/2000/09/xmldsig#:KeyInfo',
          join(dir, 'r.xml'),
        ],
        { encoding: 'utf8', stdio: 'pipe' },
      );
      expect(out).not.toMatch(/FAIL/);
    });
  });

  it('when a signed document is altered after signing, then it is rechazado for the signature (broken digest)', async () => {
    const tampered = good.replace(/12345678<\/Clave>/, '12345673</Clave>');
    const { mensaje } = await submit(strict, authStrict, tampered);
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles).toEqual([
      expect.objectContaining({ codigo: CODES.firma, mensaje: expect.stringContaining('digest') }),
    ]);
  });

  it('when TotalComprobante is wrong, then it is rechazado with the TotalComprobante finding', async () => {
    const doc = resign(good, key, (body) =>
      body
        .replace(
          /<TotalComprobante>[^<]+<\/TotalComprobante>/,
          '<TotalComprobante>999.00000</TotalComprobante>',
        )
        .replace(/12345678<\/Clave>/, '12345670</Clave>'),
    );
    const { mensaje } = await submit(strict, authStrict, doc);
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles).toEqual([
      expect.objectContaining({
        codigo: CODES.calculoResumen,
        mensaje: expect.stringContaining('TotalComprobante'),
      }),
    ]);
  });

  it('when Tarifa does not match CodigoTarifaIVA, then it is rechazado with −505', async () => {
    const doc = resign(good, key, (body) =>
      body
        .replace(/<Tarifa>13(\.00)?<\/Tarifa>/, '<Tarifa>4.00</Tarifa>')
        .replace(/12345678<\/Clave>/, '12345671</Clave>'),
    );
    const { mensaje } = await submit(strict, authStrict, doc);
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles.map((d) => d.codigo)).toContain(CODES.tarifa);
  });

  it('when CondicionVenta is not in the code table, then it is rechazado with the XSD (−99) and code-table findings', async () => {
    const doc = resign(good, key, (body) =>
      body
        .replace(/<CondicionVenta>01<\/CondicionVenta>/, '<CondicionVenta>77</CondicionVenta>')
        .replace(/12345678<\/Clave>/, '12345674</Clave>'),
    );
    const { mensaje } = await submit(strict, authStrict, doc);
    expect(mensaje?.mensaje).toBe(3);
    const codes = mensaje?.detalles.map((d) => d.codigo) ?? [];
    expect(codes).toContain(CODES.codigo);
    if (
      requireResource(
        'XSDs and xmllint',
        existsSync(join(xsdDir(), 'FacturaElectronica_V4.4.xsd')) && hasTool('xmllint'),
      )
    ) {
      expect(mensaje?.detalles).toContainEqual(
        expect.objectContaining({ codigo: CODES.schema, mensaje: expect.stringContaining('CondicionVenta') }),
      );
    }
  });

  it('when the clave’s date does not match FechaEmision, then it is rechazado with −15', async () => {
    const doc = resign(good, key, (body) =>
      body.replace(/<Clave>506(\d\d)/, (_m, dd: string) => `<Clave>506${dd === '01' ? '02' : '01'}`),
    );
    const { mensaje } = await submit(strict, authStrict, doc);
    expect(mensaje?.mensaje).toBe(3);
    expect(mensaje?.detalles).toEqual([
      expect.objectContaining({ codigo: CODES.clave, mensaje: expect.stringContaining('FechaEmision') }),
    ]);
  });

  it('when the emisor is registered and the activity code is not its own, then it is rechazado with −408', async () => {
    await request(strict.app)
      .post('/sandbox/contribuyentes')
      .send({
        identificacion: ISSUER.numeroIdentificacion,
        tipoIdentificacion: '02',
        nombre: ISSUER.nombre,
        actividades: [{ codigo: '4711.0', descripcion: 'COMERCIO' }],
      })
      .expect(201);
    const doc = resign(good, key, (body) => body.replace(/12345678<\/Clave>/, '12345672</Clave>'));
    const { mensaje } = await submit(strict, authStrict, doc);
    expect(mensaje?.detalles.map((d) => d.codigo)).toEqual([CODES.actividad]);
  });
});
