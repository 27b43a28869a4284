// For the submission pipeline: an issuer's decrypted signing key, certificate and Hacienda credentials,
// loaded within its tenant. Opening a .p12 costs ~20 ms (in the P12Pool's threads) and the sealed row is several kilobytes, so each
// process keeps the opened material per issuer and version (migration 0070: every UPDATE of an issuer
// gives it a new version). A submission then only reads the version (or, holding the material already,
// checks it in the transaction that stores the document: `peek`); the whole row is read and opened again
// when it moved (actualizar, or another process's change), so no process signs with stale material. The
// open happens outside any transaction (`hold`).
import { AppError } from '@cr/service-kit';
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { withTenant } from '../db/with-tenant';
import type { TerritorialEntry } from '../territory/territorial-table';
import { CertificateError, type OpenedCertificate } from './certificate';
import type { IssuerDeps } from './issuer-deps';
import { type IssuerRow, findIssuer, findIssuerVersion } from './issuer-repository';
import { secretContext } from './issuer-secrets';

export interface SigningMaterial {
  tenantId: string;
  identificacion: string;
  tipoIdentificacion: number;
  nombre: string;
  nombreComercial: string;
  codigoActividad: string;
  sucursal: number;
  telefono: string;
  correoElectronico: string;
  ubicacion: {
    provincia: string;
    canton: string;
    distrito: string;
    barrio: string;
    direccion: string;
    /** Names from the territorial table (the XML writes the barrio's name); absent without the table. */
    nombres?: TerritorialEntry;
  };
  ambiente: 1 | 2;
  usuarioHacienda: string;
  /** The Hacienda system password, decoded from the base64 the client sent. */
  claveHacienda: string;
  privateKey: KeyObject;
  certificate: Omit<OpenedCertificate, 'privateKey'>;
}

/** Opened material and the issuer version it was opened at. */
export interface HeldMaterial {
  version: string;
  material: SigningMaterial;
}

function keyOf(input: { tenantId: string; identificacion: string | number }): string {
  return `${input.tenantId}\u0000${String(input.identificacion)}`;
}

/** Issuers whose opened material one process keeps (least recently used beyond this are dropped). */
export const SIGNING_CACHE_LIMIT = 1_000;

export class SigningMaterialLoader {
  private readonly opened: LRUCache<string, HeldMaterial>;
  /** Opens under way, by issuer and version: concurrent loads of one version share one open. */
  private readonly opening = new Map<string, Promise<HeldMaterial>>();

  constructor(
    private readonly deps: IssuerDeps,
    limit = SIGNING_CACHE_LIMIT,
  ) {
    // lru-cache refuses a bound of 0; a loader keeps at least the issuer it just opened.
    this.opened = new LRUCache({ max: Math.max(1, limit) });
  }

  async load(input: { tenantId: string; identificacion: string | number }): Promise<SigningMaterial> {
    return (await this.hold(input)).material;
  }

  /**
   * The issuer's material as of the version read now. The row is read in a short transaction of its own and
   * the .p12 opened after it commits: the file's key derivation costs what its iteration counts make it (the
   * tenant's choice, up to P12_OPEN_TIMEOUT_MS), and a transaction held over it would hold a database
   * session, on the embedded engine its only one, so every other tenant's statements would wait for it.
   */
  async hold(input: { tenantId: string; identificacion: string | number }): Promise<HeldMaterial> {
    const id = String(input.identificacion);
    const cacheKey = keyOf(input);
    const read = await withTenant(this.deps.db, input.tenantId, async (tx) => {
      const current = await findIssuerVersion(tx, input.tenantId, id);
      if (current === undefined) return undefined;
      const hit = this.opened.get(cacheKey);
      if (hit && hit.version === current) return { hit };
      const row = await findIssuer(tx, input.tenantId, id);
      return row ? { row } : undefined;
    });
    if (!read) {
      this.opened.delete(cacheKey);
      throw new AppError('not_found', `emisor: issuer ${id} is not registered`);
    }
    return read.hit ?? this.openShared(cacheKey, input.tenantId, id, read.row);
  }

  /**
   * The material this process holds for the issuer and the version it was opened at, without reading the
   * database: a caller that uses it must check the version in the transaction that acts on it.
   */
  peek(input: { tenantId: string; identificacion: string | number }): HeldMaterial | undefined {
    return this.opened.get(keyOf(input));
  }

  /** Issuers held opened now (tests, diagnostics). */
  get size(): number {
    return this.opened.size;
  }

  private openShared(cacheKey: string, tenantId: string, id: string, row: IssuerRow): Promise<HeldMaterial> {
    const version = String(row.version);
    // The read found nothing held, but its commit took time: an open of this version may have ended (and
    // left `opening`) meanwhile. Its material serves this load too, rather than a second open of the file.
    const kept = this.opened.get(cacheKey);
    if (kept && kept.version === version) return Promise.resolve(kept);
    const flightKey = `${cacheKey}\u0000${version}`;
    const underWay = this.opening.get(flightKey);
    if (underWay) return underWay;
    const flight = this.open(tenantId, id, row)
      .then((material) => {
        const held = { version, material };
        // An open that started before an update may end after the newer version's: the newer one stays
        // (versions come from one sequence, so a larger one is later), or every use would open it again.
        const kept = this.opened.peek(cacheKey);
        if (!kept || BigInt(kept.version) < BigInt(version)) this.opened.set(cacheKey, held);
        return held;
      })
      .finally(() => this.opening.delete(flightKey));
    this.opening.set(flightKey, flight);
    return flight;
  }

  private async open(tenantId: string, id: string, row: IssuerRow): Promise<SigningMaterial> {
    const p12 = this.deps.secrets.open(row.certificate_sealed, secretContext(tenantId, id, 'certificate'));
    const pin = this.deps.secrets.openText(row.pin_sealed, secretContext(tenantId, id, 'pin'));
    let opened: OpenedCertificate;
    try {
      opened = await this.deps.certificates.open(p12, pin);
    } catch (err) {
      // A file stored before the iteration cap, or one that no longer opens: the issuer must replace it.
      if (!(err instanceof CertificateError)) throw err;
      throw new AppError(
        'conflict',
        `emisor: the stored certificate of issuer ${id} ${err.message}; replace it with /api/actualizar/emisor`,
      );
    }
    const { privateKey, ...certificate } = opened;
    const clave = this.deps.secrets.openText(
      row.clave_hacienda_sealed,
      secretContext(tenantId, id, 'clave_hacienda'),
    );
    const codes = {
      provincia: row.provincia,
      canton: row.canton,
      distrito: row.distrito,
      barrio: row.barrio,
    };
    const nombres = this.deps.territory?.find(codes);
    return {
      tenantId,
      identificacion: id,
      tipoIdentificacion: row.tipo_identificacion,
      nombre: row.nombre,
      nombreComercial: row.nombre_comercial,
      codigoActividad: row.codigo_actividad,
      sucursal: row.sucursal,
      telefono: row.telefono,
      correoElectronico: row.correo_electronico,
      ubicacion: { ...codes, direccion: row.direccion, ...(nombres ? { nombres } : {}) },
      ambiente: row.ambiente === 1 ? 1 : 2,
      usuarioHacienda: row.usuario_hacienda,
      claveHacienda: Buffer.from(clave, 'base64').toString('utf8'),
      privateKey,
      certificate,
    };
  }
}
