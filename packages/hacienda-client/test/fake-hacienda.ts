// A local fake of Hacienda's HTTP endpoints (IdP, recepción, public API) on loopback, speaking the protocol
// REFERENCE §3, §4 and §10 describe. Tests script faults by pushing one-shot handlers.
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';

type Script = (req: Request, res: Response) => void;

export interface Grant {
  realm: string;
  grantType: string;
  clientId: string;
  username?: string;
  scope?: string;
  clientSecret?: string;
}

export class FakeHacienda {
  url = '';
  server: Server | undefined;
  readonly users = new Map<string, string>([
    ['cpj-3-101-123456@stag.comprobanteselectronicos.go.cr', 'p&ss=wörd+/%?#1'],
  ]);
  readonly grants: Grant[] = [];
  readonly accessTokens = new Set<string>();
  readonly refreshTokens = new Map<string, string>(); // refresh token → realm
  readonly logouts: string[] = [];
  expiresIn = 300;
  /** undefined: the token answer has no refresh_expires_in at all. */
  refreshExpiresIn: number | undefined = 1800;
  idpDelayMs = 0;
  idpScript: Script[] = [];
  readonly received = new Map<string, { body: Record<string, unknown>; estado: string }>();
  readonly submissions: Array<{ authorization?: string; body: Record<string, unknown> }> = [];
  /** Scripted answers for the next POST /recepcion calls. */
  recepcionScript: Script[] = [];
  /** Scripted answers for the next GET /recepcion/{clave} calls (kept apart so polling cannot eat a POST's script). */
  statusScript: Script[] = [];
  publicScript: Script[] = [];
  publicRequests: string[] = [];

  async start(): Promise<string> {
    const app = express();
    app.use(express.urlencoded({ extended: false }));
    app.use(express.json({ limit: '5mb' }));

    const realms = { 'rut-stag': 'api-stag', rut: 'api-prod' } as Record<string, string>;
    app.post('/auth/realms/:realm/protocol/openid-connect/token', async (req, res) => {
      const realm = String(req.params.realm);
      const f = req.body as Record<string, string>;
      this.grants.push({
        realm,
        grantType: f.grant_type ?? '',
        clientId: f.client_id ?? '',
        ...(f.username !== undefined ? { username: f.username } : {}),
        ...(f.scope !== undefined ? { scope: f.scope } : {}),
        ...(f.client_secret !== undefined ? { clientSecret: f.client_secret } : {}),
      });
      if (this.idpDelayMs) await new Promise((r) => setTimeout(r, this.idpDelayMs));
      const script = this.idpScript.shift();
      if (script) return script(req, res);
      if (!req.is('application/x-www-form-urlencoded'))
        return res.status(400).json({ error: 'invalid_request' });
      if (realms[realm] !== f.client_id) return res.status(401).json({ error: 'unauthorized_client' });
      if (f.grant_type === 'password') {
        if (this.users.get(f.username ?? '') !== f.password) {
          return res
            .status(401)
            .json({ error: 'invalid_grant', error_description: 'Invalid user credentials' });
        }
      } else if (f.grant_type === 'refresh_token') {
        if (this.refreshTokens.get(f.refresh_token ?? '') !== realm) {
          return res.status(400).json({ error: 'invalid_grant', error_description: 'Token is not active' });
        }
        this.refreshTokens.delete(f.refresh_token ?? '');
      } else {
        return res.status(400).json({ error: 'unsupported_grant_type' });
      }
      const access = `at-${randomBytes(8).toString('hex')}`;
      const refresh = `rt-${randomBytes(8).toString('hex')}`;
      this.accessTokens.add(access);
      this.refreshTokens.set(refresh, realm);
      return res.json({
        access_token: access,
        expires_in: this.expiresIn,
        ...(this.refreshExpiresIn === undefined ? {} : { refresh_expires_in: this.refreshExpiresIn }),
        refresh_token: refresh,
        token_type: 'bearer',
        'not-before-policy': 0,
        session_state: 'x',
        scope: 'profile email',
      });
    });
    app.post('/auth/realms/:realm/protocol/openid-connect/logout', (req, res) => {
      const f = req.body as Record<string, string>;
      if (
        realms[String(req.params.realm)] !== f.client_id ||
        !this.refreshTokens.has(f.refresh_token ?? '')
      ) {
        return res.status(400).json({ error: 'invalid_grant' });
      }
      this.refreshTokens.delete(f.refresh_token ?? '');
      this.logouts.push(f.refresh_token ?? '');
      return res.status(204).end();
    });

    const authorized = (req: Request) => {
      const m = /^bearer (.+)$/i.exec(req.get('authorization') ?? '');
      return m?.[1] !== undefined && this.accessTokens.has(m[1]);
    };
    const rateHeaders = (res: Response) =>
      res.set({
        'X-Ratelimit-Limit': '100',
        'X-Ratelimit-Remaining': '99',
        'X-Ratelimit-Reset': '1900000000',
      });

    app.post('/recepcion/v1/recepcion', (req, res) => {
      const body = req.body as Record<string, unknown>;
      this.submissions.push({
        ...(req.get('authorization') ? { authorization: req.get('authorization') } : {}),
        body,
      });
      const script = this.recepcionScript.shift();
      if (script) return script(req, res);
      rateHeaders(res);
      if (!authorized(req)) return res.status(401).end();
      const clave = String(body.clave ?? '');
      if (!/^\d{50}$/.test(clave))
        return res.status(400).set('X-Error-Cause', 'La clave no tiene el formato correcto').end();
      if (this.received.has(clave)) {
        return res
          .status(400)
          .set('X-Error-Cause', `El comprobante con la Clave [${clave}] ya fue recibido`)
          .end();
      }
      this.received.set(clave, { body, estado: 'procesando' });
      return res.status(202).set('Location', `${this.url}/recepcion/v1/recepcion/${clave}`).end();
    });
    app.get('/recepcion/v1/recepcion/:clave', (req, res) => {
      const script = this.statusScript.shift();
      if (script) return script(req, res);
      rateHeaders(res);
      if (!authorized(req)) return res.status(401).end();
      const clave = String(req.params.clave);
      const doc = this.received.get(clave);
      if (!doc)
        return res.status(404).set('X-Error-Cause', `No existe el recurso con Clave = [${clave}]`).end();
      return res.json({
        clave,
        fecha: doc.body.fecha,
        'ind-estado': doc.estado.toUpperCase(),
        ...(doc.estado === 'aceptado'
          ? { 'respuesta-xml': Buffer.from('<MensajeHacienda/>').toString('base64') }
          : {}),
        ...(doc.body.callbackUrl ? { callbackUrl: doc.body.callbackUrl } : {}),
      });
    });

    const taxpayers: Record<string, unknown> = {
      '2100042005': {
        nombre: 'ESTADO-MINISTERIO DE HACIENDA',
        tipoIdentificacion: '02',
        regimen: { codigo: 1, descripcion: 'Régimen Tradicional' },
        situacion: {
          moroso: 'NO',
          omiso: 'NO',
          estado: 'Inscrito',
          administracionTributaria: 'Grandes Contribuyentes',
        },
        actividades: [
          {
            estado: 'A',
            tipo: 'P',
            codigo: '751101',
            descripcion: 'ACTIVIDADES DE LA ADMINISTRACION PUBLICA EN GENERAL',
          },
        ],
      },
    };
    const cabys = [
      {
        codigo: '2132100000100',
        descripcion: 'Jugo de tomate concentrado',
        categorias: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
        impuesto: 13,
        uri: 'https://api.hacienda.go.cr/fe/cabys?codigo=2132100000100',
      },
    ];
    app.use('/fe', (req, _res, next) => {
      this.publicRequests.push(req.originalUrl);
      next();
    });
    app.get('/fe/ae', (req, res) => {
      const script = this.publicScript.shift();
      if (script) return script(req, res);
      const id = String(req.query.identificacion ?? '');
      if (!/^\d{9,12}$/.test(id)) return res.status(400).send('Identificación inválida');
      const t = taxpayers[id];
      return t ? res.json(t) : res.status(404).end();
    });
    app.get('/fe/ex', (req, res) => {
      const script = this.publicScript.shift();
      if (script) return script(req, res);
      const a = String(req.query.autorizacion ?? '');
      if (!/^al-\d{8}-\d{2}$/i.test(a)) return res.status(400).end();
      if (a.toUpperCase() !== 'AL-00460853-20') return res.status(404).end();
      return res.json({
        numeroDocumento: 'AL-00460853-20',
        identificacion: '3101123456',
        codigoProyectoCFIA: 0,
        fechaEmision: '2020-12-15T00:00:00',
        fechaVencimiento: '2030-12-31T00:00:00',
        porcentajeExoneracion: 13,
        tipoDocumento: { codigo: '04', descripcion: 'Exenciones Dirección General de Hacienda' },
        nombreInstitucion: 'Dirección General de Hacienda',
        poseeCabys: true,
        cabys: ['2132100000100'],
      });
    });
    app.get('/fe/cabys', (req, res) => {
      const script = this.publicScript.shift();
      if (script) return script(req, res);
      if (req.query.codigo !== undefined) return res.json(cabys.filter((c) => c.codigo === req.query.codigo));
      const q = String(req.query.q ?? '').toLowerCase();
      const found = cabys.filter((c) => c.descripcion.toLowerCase().includes(q));
      const top = Number(req.query.top ?? 10);
      return res.json({
        total: found.length,
        cantidad: Math.min(top, found.length),
        cabys: found.slice(0, top),
      });
    });

    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    this.server = server;
    this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.url;
  }

  get settings() {
    return {
      HACIENDA_IDP_URL_TEST: `${this.url}/auth/realms/rut-stag/protocol/openid-connect/token`,
      HACIENDA_IDP_URL_PROD: `${this.url}/auth/realms/rut/protocol/openid-connect/token`,
      HACIENDA_RECEPCION_URL_TEST: `${this.url}/recepcion/v1`,
      HACIENDA_RECEPCION_URL_PROD: `${this.url}/recepcion/v1`,
      HACIENDA_PUBLIC_API_URL: this.url,
    };
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A clock tests move by hand, and a sleep that moves it instead of waiting. */
export function createFakeTime(start = 1_800_000_000_000) {
  let t = start;
  const sleeps: number[] = [];
  return {
    clock: () => t,
    advance(ms: number) {
      t += ms;
    },
    sleeps,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

export const STAG_USER = {
  username: 'cpj-3-101-123456@stag.comprobanteselectronicos.go.cr',
  password: 'p&ss=wörd+/%?#1',
};
