// Test documents: the real accepted samples, and helpers to post them through the real IdP and recepción.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { samplesDir } from '@cr/testkit';
import type { Express } from 'express';
import request from 'supertest';
import { parseComprobante } from '../src/verdict/parse-comprobante';

export function sampleFiles(): string[] {
  try {
    return readdirSync(samplesDir()).filter((f) => f.endsWith('.xml'));
  } catch {
    return [];
  }
}

export function readSample(file: string): string {
  return readFileSync(join(samplesDir(), file), 'utf8');
}

/** Hacienda's POST body for a signed XML, taken from the XML itself. */
export function bodyFor(xml: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const doc = parseComprobante(xml);
  const fecha = doc.fechaEmision ?? '';
  return {
    clave: doc.clave,
    fecha: /[+-]\d{2}:\d{2}$|Z$/.test(fecha) ? fecha : `${fecha}-06:00`,
    emisor: { tipoIdentificacion: doc.emisor.tipo, numeroIdentificacion: doc.emisor.numero },
    ...(doc.receptor?.numero
      ? { receptor: { tipoIdentificacion: doc.receptor.tipo, numeroIdentificacion: doc.receptor.numero } }
      : {}),
    comprobanteXml: Buffer.from(xml, 'utf8').toString('base64'),
    ...extra,
  };
}

export async function tokenFor(
  app: Express,
  username = 'cpj-3-101-261506@stag.comprobanteselectronicos.go.cr',
): Promise<string> {
  const res = await request(app)
    .post('/auth/realms/rut-stag/protocol/openid-connect/token')
    .type('form')
    .send({ grant_type: 'password', client_id: 'api-stag', username, password: 'demo-password' });
  if (res.status !== 200) throw new Error(`token grant failed: ${res.status} ${JSON.stringify(res.body)}`);
  return `bearer ${res.body.access_token as string}`;
}
