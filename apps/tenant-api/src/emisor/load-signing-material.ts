// For the submission pipeline: an issuer's decrypted signing key, certificate and Hacienda credentials,
// loaded within its tenant. Opening a .p12 costs ~20 ms, so opened keys are cached per issuer and
// reopened only when the stored certificate changes (actualizar re-seals it).
import { AppError, type Queryable } from '@cr/service-kit';
import type { KeyObject } from 'node:crypto';
import { withTenant } from '../db/with-tenant';
import type { TerritorialEntry } from '../territory/territorial-table';
import { type OpenedCertificate, openCertificate } from './certificate';
import type { IssuerDeps } from './issuer-deps';
import { findIssuer, type IssuerRow } from './issuer-repository';
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

export class SigningMaterialLoader {
  private readonly opened = new Map<string, { sealed: string; cert: OpenedCertificate }>();

  constructor(private readonly deps: IssuerDeps) {}

  async load(input: { tenantId: string; identificacion: string | number }): Promise<SigningMaterial> {
    return withTenant(this.deps.db, input.tenantId, (tx) => this.loadIn(tx, input));
  }

  /**
   * The same within a transaction the caller already holds (withTenant for `input.tenantId`), so the
   * submission reads the issuer and checks the document number in one transaction.
   */
  async loadIn(
    tx: Queryable,
    input: { tenantId: string; identificacion: string | number },
  ): Promise<SigningMaterial> {
    const id = String(input.identificacion);
    const row = await findIssuer(tx, input.tenantId, id);
    if (!row) throw new AppError('not_found', `emisor: issuer ${id} is not registered`);
    const cert = this.openCertificateOf(input.tenantId, row);
    const { privateKey, ...certificate } = cert;
    const clave = this.deps.secrets.openText(
      row.clave_hacienda_sealed,
      secretContext(input.tenantId, id, 'clave_hacienda'),
    );
    const codes = {
      provincia: row.provincia,
      canton: row.canton,
      distrito: row.distrito,
      barrio: row.barrio,
    };
    const nombres = this.deps.territory?.find(codes);
    return {
      tenantId: input.tenantId,
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

  private openCertificateOf(tenantId: string, row: IssuerRow): OpenedCertificate {
    const cacheKey = `${tenantId}\u0000${row.identificacion}`;
    const hit = this.opened.get(cacheKey);
    if (hit && hit.sealed === row.certificate_sealed) return hit.cert;
    const p12 = this.deps.secrets.open(
      row.certificate_sealed,
      secretContext(tenantId, row.identificacion, 'certificate'),
    );
    const pin = this.deps.secrets.openText(
      row.pin_sealed,
      secretContext(tenantId, row.identificacion, 'pin'),
    );
    const cert = openCertificate(p12, pin);
    this.opened.set(cacheKey, { sealed: row.certificate_sealed, cert });
    return cert;
  }
}
