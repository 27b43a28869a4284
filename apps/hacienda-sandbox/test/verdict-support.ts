// Verdict test helpers: submit a signed XML through the real recepción and wait for its final state;
// re-sign an engine-built document after editing its body so only the edit is wrong.
import { type SigningKey, openP12, parseMensajeHacienda, signCanonicalDocument } from '@cr/hacienda-xml';
import type { Express } from 'express';
import request from 'supertest';
import type { TransitionEvent } from '../src/processor';
import { bodyFor } from './documents';
import type { Harness } from './sandbox-harness';

/** Submits a signed XML and waits for its final state; returns the status body and the parsed answer. */
export async function submit(h: Harness, auth: string, xml: string, extra: Record<string, unknown> = {}) {
  const body = bodyFor(xml, extra);
  const done = new Promise<void>((resolve) => {
    const on = (e: TransitionEvent) => {
      if (e.clave !== body.clave || !['aceptado', 'rechazado', 'error'].includes(e.estado)) return;
      h.processor.off('transition', on);
      resolve();
    };
    h.processor.on('transition', on);
  });
  const res = await request(h.app).post('/recepcion/v1/recepcion').set('Authorization', auth).send(body);
  if (res.status !== 202) throw new Error(`POST answered ${res.status}: ${res.headers['x-error-cause']}`);
  await done;
  const status = await request(h.app)
    .get(`/recepcion/v1/recepcion/${body.clave}`)
    .set('Authorization', auth)
    .expect(200);
  const respuesta = status.body['respuesta-xml']
    ? Buffer.from(status.body['respuesta-xml'], 'base64').toString('utf8')
    : undefined;
  return { status: status.body, respuesta, mensaje: respuesta ? parseMensajeHacienda(respuesta) : undefined };
}

// Signed now: the certificate the sandbox issues in beforeAll is valid from now on.
export const SIGNED_AT = new Date();

/** Re-signs a document the engine built after editing its (canonical) body, so only the edit is wrong. */
export function resign(xml: string, key: SigningKey, edit: (body: string) => string): string {
  const m =
    /^(?:<\?xml[^>]*\?>\s*)?(<(\w+) xmlns="([^"]+)">)([\s\S]*?)(<ds:Signature[\s\S]*)(<\/\2>)\s*$/.exec(xml);
  if (!m) throw new Error('unexpected document shape');
  const [, open, , namespace, body, , close] = m as unknown as string[];
  return signCanonicalDocument(
    { open: open!, body: edit(body!), close: close!, namespace: namespace! },
    key,
    { now: SIGNED_AT },
  );
}

/** The signing key the sandbox's CA issues to a taxpayer (a cédula física has 9 digits, a jurídica 10). */
export async function issueKey(app: Express, identificacion: string, nombre: string): Promise<SigningKey> {
  const cert = await request(app)
    .post('/sandbox/certificados')
    .send({
      identificacion,
      tipoIdentificacion: identificacion.length === 9 ? '01' : '02',
      nombre,
      pin: '4321',
    })
    .expect(201);
  return openP12(Buffer.from(cert.body.p12, 'base64'), '4321');
}
