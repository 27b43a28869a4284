// First-start provisioning: an IdP user, a registered taxpayer and a test llave criptográfica (.p12 + PIN)
// written to DATA_DIR/demo, and an exoneration held by the receptor of docs/getting-started.md's invoices, so a
// newcomer can try the whole flow, lookups included, at once. Runs once (demo/demo.json marks it).
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { costaRicaDate, toCostaRicaParts } from '@cr/hacienda-xml';
import type { Db } from '@cr/service-kit';
import { issueP12, saveExoneration, saveTaxpayer } from './admin';
import type { KeyMaterial } from './certificate-authority';
import { upsertUser } from './idp';

export interface DemoSetup {
  username: string;
  password: string;
  identificacion: string;
  tipoIdentificacion: '02';
  nombre: string;
  p12Path: string;
  pin: string;
  codigoActividad: string;
  /** An exoneration (13 %, any CABYS) held by DEMO_RECEPTOR, for `POST /api/hacienda/exoneracion`. */
  exoneracion: string;
  exoneracionReceptor: string;
}

export const DEMO_ID = '3101123456';
/** The receptor docs/getting-started.md invoices. */
export const DEMO_RECEPTOR = '3101779527';

export async function provisionDemo(
  db: Db,
  ca: KeyMaterial,
  dataDir: string,
  now: Date = new Date(),
): Promise<{ demo: DemoSetup; created: boolean }> {
  const dir = join(dataDir, 'demo');
  const marker = join(dir, 'demo.json');
  if (existsSync(marker))
    return { demo: JSON.parse(readFileSync(marker, 'utf8')) as DemoSetup, created: false };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const demo: DemoSetup = {
    username: 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr',
    password: randomBytes(15).toString('base64url'),
    identificacion: DEMO_ID,
    tipoIdentificacion: '02',
    nombre: 'EMPRESA DEMO SOCIEDAD ANONIMA',
    p12Path: join(dir, `llave-${DEMO_ID}.p12`),
    pin: String(randomInt(0, 10_000)).padStart(4, '0'),
    codigoActividad: '6201.0',
    exoneracion: 'AL-00020402-24',
    exoneracionReceptor: DEMO_RECEPTOR,
  };
  await upsertUser(db, 'rut-stag', demo.username, demo.password);
  await saveTaxpayer(db, {
    identificacion: demo.identificacion,
    tipoIdentificacion: demo.tipoIdentificacion,
    nombre: demo.nombre,
    actividades: [{ codigo: demo.codigoActividad, descripcion: 'ACTIVIDADES DE PROGRAMACION INFORMATICA' }],
  });
  // Issued today in Costa Rica (the date a client writes in FechaEmisionEX), for two years from that day:
  // calendar arithmetic on that day's fields, where 29 February rolls to 1 March.
  const today = toCostaRicaParts(now);
  const expires = new Date(Date.UTC(today.year + 2, today.month - 1, today.day)).toISOString().slice(0, 10);
  await saveExoneration(
    db,
    {
      numeroDocumento: demo.exoneracion,
      identificacion: demo.exoneracionReceptor,
      porcentajeExoneracion: 13,
      fechaEmision: costaRicaDate(now),
      fechaVencimiento: expires,
    },
    now,
  );
  const cert = issueP12(ca, {
    identificacion: demo.identificacion,
    tipoIdentificacion: demo.tipoIdentificacion,
    nombre: demo.nombre,
    pin: demo.pin,
  });
  writeFileSync(demo.p12Path, Buffer.from(cert.p12, 'base64'), { mode: 0o600 });
  writeFileSync(marker, JSON.stringify(demo, null, 2), { mode: 0o600 });
  return { demo, created: true };
}
