// The sandbox as a real process (main.ts): first-start demo, and state that survives a restart.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, removeTree, requireResource, startApp } from '@cr/testkit';
import { bodyFor, readSample, sampleFiles } from './documents';

async function token(app: AppProcess, username: string, password: string): Promise<string> {
  const res = await fetch(`${app.url}/auth/realms/rut-stag/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'api-stag', username, password }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status}`);
  return `bearer ${((await res.json()) as { access_token: string }).access_token}`;
}

describe('sandbox process', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandbox-proc-'));
  afterAll(() => removeTree(dataDir));

  it('when restarted on the same DATA_DIR, then the CA, the demo user and a pending document survive, and the document is processed', async () => {
    if (!requireResource('Hacienda samples', sampleFiles().length === 3)) return;
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: undefined,
      SANDBOX_TRUST_ANY_CA: 'true',
      LOG_LEVEL: 'warn',
    };
    // First run: processing is slow, so the document is still pending when the process stops.
    let app = await startApp({
      app: 'hacienda-sandbox',
      portVar: 'SANDBOX_PORT',
      env: { ...env, SANDBOX_PROCESSING_DELAY_MS: '600000' },
    });
    let clave: string;
    let caPem: string;
    try {
      expect(app.output()).toContain('Hacienda sandbox on');
      const demo = JSON.parse(readFileSync(join(dataDir, 'demo', 'demo.json'), 'utf8')) as {
        username: string;
        password: string;
        p12Path: string;
        pin: string;
      };
      expect(existsSync(demo.p12Path)).toBe(true);
      expect(app.output()).not.toContain(demo.password);
      // The exoneration docs/getting-started.md looks up is there from the first start.
      const ex = await fetch(`${app.url}/fe/ex?autorizacion=AL-00020402-24`);
      expect(ex.status).toBe(200);
      expect(await ex.json()).toMatchObject({
        numeroDocumento: 'AL-00020402-24',
        identificacion: '3101779527',
        porcentajeExoneracion: 13,
      });
      expect(app.output()).toContain('Exoneration: AL-00020402-24  (held by 3101779527, 13 %)');
      caPem = await (await fetch(`${app.url}/sandbox/ca`)).text();
      const auth = await token(app, demo.username, demo.password);
      const body = bodyFor(readSample(sampleFiles().find((f) => f.startsWith('fe-')) as string));
      clave = body.clave as string;
      const res = await fetch(`${app.url}/recepcion/v1/recepcion`, {
        method: 'POST',
        headers: { Authorization: auth, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe(`${app.url}/recepcion/v1/recepcion/${clave}`);
    } finally {
      await app.stop();
    }
    app = await startApp({
      app: 'hacienda-sandbox',
      portVar: 'SANDBOX_PORT',
      env: { ...env, SANDBOX_PROCESSING_DELAY_MS: '0' },
    });
    try {
      expect(await (await fetch(`${app.url}/sandbox/ca`)).text()).toBe(caPem);
      const demo = JSON.parse(readFileSync(join(dataDir, 'demo', 'demo.json'), 'utf8')) as {
        username: string;
        password: string;
      };
      const auth = await token(app, demo.username, demo.password);
      let estado = '';
      for (let i = 0; i < 100 && !['aceptado', 'rechazado', 'error'].includes(estado); i++) {
        const r = await fetch(`${app.url}/recepcion/v1/recepcion/${clave}`, {
          headers: { Authorization: auth },
        });
        estado = ((await r.json()) as { 'ind-estado': string })['ind-estado'];
        if (estado !== 'aceptado') await new Promise((r2) => setTimeout(r2, 100));
      }
      expect(estado).toBe('aceptado');
    } finally {
      await app.stop();
    }
  }, 120_000);
});
