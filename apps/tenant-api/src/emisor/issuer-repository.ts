// Storage of issuers. Every function takes the tenant and filters by it; callers run them inside
// withTenant(), where row-level security enforces the same filter a second time.
import type { Db, Queryable } from '@cr/service-kit';

export interface IssuerRow {
  tenant_id: string;
  identificacion: string;
  tipo_identificacion: number;
  nombre: string;
  nombre_comercial: string;
  codigo_actividad: string;
  sucursal: number;
  telefono: string;
  correo_electronico: string;
  provincia: string;
  canton: string;
  distrito: string;
  barrio: string;
  direccion: string;
  ambiente: number;
  usuario_hacienda: string;
  clave_hacienda_sealed: string;
  pin_sealed: string;
  certificate_sealed: string;
  secrets_key_id: string;
  certificate_subject: string;
  certificate_serial: string;
  certificate_not_before: Date;
  certificate_not_after: Date;
  updated_at?: Date;
  /** Changes on every update (migration 0070); bigint as a string. */
  version?: string;
}

export type IssuerValues = Omit<IssuerRow, 'tenant_id' | 'updated_at' | 'version'>;

const COLUMNS = [
  'identificacion',
  'tipo_identificacion',
  'nombre',
  'nombre_comercial',
  'codigo_actividad',
  'sucursal',
  'telefono',
  'correo_electronico',
  'provincia',
  'canton',
  'distrito',
  'barrio',
  'direccion',
  'ambiente',
  'usuario_hacienda',
  'clave_hacienda_sealed',
  'pin_sealed',
  'certificate_sealed',
  'secrets_key_id',
  'certificate_subject',
  'certificate_serial',
  'certificate_not_before',
  'certificate_not_after',
] as const satisfies ReadonlyArray<keyof IssuerValues>;

function valuesOf(v: IssuerValues): unknown[] {
  return COLUMNS.map((c) => v[c]);
}

const NUMBER_COLUMNS = ['tipo_identificacion', 'sucursal', 'ambiente'] as const;
const DATE_COLUMNS = ['certificate_not_before', 'certificate_not_after'] as const;

/** The row's numbers and dates as such, whichever of them the query read (drivers differ in what they return). */
function normalise<T extends Partial<IssuerRow>>(row: T): T {
  const out: Partial<IssuerRow> = { ...row };
  for (const c of NUMBER_COLUMNS) if (c in row) out[c] = Number(row[c]);
  for (const c of DATE_COLUMNS) if (c in row) out[c] = new Date(row[c]!);
  return out as T;
}

export async function findIssuer(
  tx: Queryable,
  tenantId: string,
  identificacion: string,
): Promise<IssuerRow | undefined> {
  const r = await tx.query<IssuerRow>('SELECT * FROM issuers WHERE tenant_id = $1 AND identificacion = $2', [
    tenantId,
    identificacion,
  ]);
  return r.rows[0] ? normalise(r.rows[0]) : undefined;
}

/** What GET /api/emisores shows of an issuer: its public data, none of its sealed secrets. */
export const PUBLIC_ISSUER_COLUMNS = [
  'identificacion',
  'tipo_identificacion',
  'nombre_comercial',
  'correo_electronico',
  'telefono',
  'ambiente',
  'certificate_subject',
  'certificate_not_after',
] as const satisfies ReadonlyArray<keyof IssuerRow>;

export type PublicIssuerRow = Pick<IssuerRow, (typeof PUBLIC_ISSUER_COLUMNS)[number]>;

/**
 * Every issuer of the tenant, by identificacion, without the sealed secrets: an accounting firm's tenant may
 * hold thousands of issuers, each with a .p12 of up to 150 KB, which the list never shows.
 */
export async function listIssuerRows(tx: Queryable, tenantId: string): Promise<PublicIssuerRow[]> {
  const r = await tx.query<PublicIssuerRow>(
    `SELECT ${PUBLIC_ISSUER_COLUMNS.join(', ')} FROM issuers WHERE tenant_id = $1 ORDER BY identificacion`,
    [tenantId],
  );
  return r.rows.map(normalise);
}

/** The issuer's current version (bigint as a string), or undefined when it is not registered. */
export async function findIssuerVersion(
  tx: Queryable,
  tenantId: string,
  identificacion: string,
): Promise<string | undefined> {
  const r = await tx.query<{ version: string }>(
    'SELECT version FROM issuers WHERE tenant_id = $1 AND identificacion = $2',
    [tenantId, identificacion],
  );
  return r.rows[0] ? String(r.rows[0].version) : undefined;
}

/** Inserts unless the issuer exists; returns whether it was inserted. */
export async function insertIssuer(tx: Queryable, tenantId: string, values: IssuerValues): Promise<boolean> {
  const placeholders = COLUMNS.map((_, i) => `$${i + 2}`).join(', ');
  const r = await tx.query(
    `INSERT INTO issuers (tenant_id, ${COLUMNS.join(', ')}) VALUES ($1, ${placeholders})
     ON CONFLICT (tenant_id, identificacion) DO NOTHING`,
    [tenantId, ...valuesOf(values)],
  );
  return r.rowCount === 1;
}

/** Replaces an existing issuer's data; returns whether it existed. */
export async function updateIssuer(tx: Queryable, tenantId: string, values: IssuerValues): Promise<boolean> {
  const sets = COLUMNS.slice(1)
    .map((c, i) => `${c} = $${i + 3}`)
    .join(', ');
  const r = await tx.query(
    `UPDATE issuers SET ${sets}, updated_at = now() WHERE tenant_id = $1 AND identificacion = $2`,
    [tenantId, ...valuesOf(values)],
  );
  return r.rowCount === 1;
}

export interface CertificateExpiry {
  tenantId: string;
  identificacion: string;
  notAfter: Date;
}

/**
 * unsafe: crosses tenants on purpose; the expiry watch reports on every issuer's certificate. Runs as
 * the owning role outside withTenant and returns no secret.
 */
export async function unsafeListCertificatesExpiringBefore(
  db: Db,
  before: Date,
): Promise<CertificateExpiry[]> {
  const r = await db.query<{ tenant_id: string; identificacion: string; certificate_not_after: Date }>(
    `SELECT tenant_id, identificacion, certificate_not_after FROM issuers
     WHERE certificate_not_after < $1 ORDER BY certificate_not_after`,
    [before.toISOString()],
  );
  return r.rows.map((row) => ({
    tenantId: row.tenant_id,
    identificacion: row.identificacion,
    notAfter: new Date(row.certificate_not_after),
  }));
}
