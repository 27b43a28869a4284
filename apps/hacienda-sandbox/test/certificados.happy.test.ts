import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireResource } from '@cr/testkit';
import forge from 'node-forge';
import request from 'supertest';
import { loadOrCreateKeys } from '../src/certificate-authority';
import { type Harness, startHarness } from './sandbox-harness';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version']);
    return true;
  } catch {
    return false;
  }
}

describe('test certificate authority', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('when a certificate is requested, then the .p12 opens with node-forge and carries the identification, RSA-2048, 4 years', async () => {
    const res = await request(h.app).post('/sandbox/certificados').send({
      identificacion: '3101745822',
      tipoIdentificacion: '02',
      nombre: 'Empresa Demo SA',
      pin: '1234',
    });
    expect(res.status).toBe(201);
    expect(res.body.subject).toContain('serialNumber=CPJ-3-101-745822');
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.decode64(res.body.p12)), '1234');
    const certBag =
      p12.getBags({ bagType: forge.pki.oids.certBag as string })[forge.pki.oids.certBag as string] ?? [];
    const keyBag =
      p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag as string })[
        forge.pki.oids.pkcs8ShroudedKeyBag as string
      ] ?? [];
    expect(keyBag).toHaveLength(1);
    const cert = certBag
      .map((b) => b.cert)
      .find(
        (c) =>
          c &&
          (c.subject.getField({ name: 'serialNumber' }) as { value: string } | null)?.value ===
            'CPJ-3-101-745822',
      );
    expect(cert).toBeDefined();
    const key = keyBag[0]?.key as forge.pki.rsa.PrivateKey;
    expect(key.n.bitLength()).toBe(2048);
    expect(cert?.subject.getField('O')?.value).toBe('PERSONA JURIDICA');
    const years =
      (cert!.validity.notAfter.getTime() - cert!.validity.notBefore.getTime()) / (365.25 * 86_400_000);
    expect(Math.round(years)).toBe(4);
    expect(forge.pki.certificateFromPem(h.keys.ca.certPem).verify(cert!)).toBe(true);
  });

  it('when the .p12 is opened with openssl pkcs12 -legacy, then the subject carries the CPF identification', async () => {
    if (!requireResource('openssl', hasOpenssl())) return;
    const res = await request(h.app).post('/sandbox/certificados').send({
      identificacion: '109870456',
      tipoIdentificacion: '01',
      nombre: 'Ana Pérez',
      pin: 'pin largo 14ch',
    });
    const dir = mkdtempSync(join(tmpdir(), 'p12-'));
    try {
      const file = join(dir, 'k.p12');
      writeFileSync(file, Buffer.from(res.body.p12, 'base64'));
      const out = execFileSync(
        'openssl',
        ['pkcs12', '-legacy', '-in', file, '-passin', 'pass:pin largo 14ch', '-nodes', '-clcerts'],
        {
          encoding: 'utf8',
        },
      );
      expect(out).toContain('BEGIN PRIVATE KEY');
      expect(out).toMatch(/subject=.*serialNumber\s*=\s*CPF-01-0987-0456/);
      expect(out).toMatch(/O\s*=\s*PERSONA FISICA/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the sandbox restarts on the same data directory, then the CA key is the same', () => {
    const again = loadOrCreateKeys(h.dataDir);
    expect(again.ca.certPem).toBe(h.keys.ca.certPem);
    expect(again.hacienda.keyPem).toBe(h.keys.hacienda.keyPem);
  });

  it('when the request misses a field, then 400 naming it', async () => {
    const res = await request(h.app)
      .post('/sandbox/certificados')
      .send({ identificacion: '3101745822', tipoIdentificacion: '02', nombre: 'X' });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('pin');
  });
});
