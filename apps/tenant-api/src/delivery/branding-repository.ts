// The tenant_branding row: logo bytes and footer text of the tenant's PDFs.
import type { Queryable } from '@cr/service-kit';

export interface BrandingRow {
  logo: Buffer | null;
  logo_type: 'image/png' | 'image/jpeg' | null;
  footer: string | null;
}

export async function findBranding(tx: Queryable, tenantId: string): Promise<BrandingRow | undefined> {
  const r = await tx.query<{
    logo: Buffer | Uint8Array | null;
    logo_type: BrandingRow['logo_type'];
    footer: string | null;
  }>('SELECT logo, logo_type, footer FROM tenant_branding WHERE tenant_id = $1', [tenantId]);
  const row = r.rows[0];
  if (!row) return undefined;
  // PGlite returns bytea as Uint8Array, node-postgres as Buffer.
  return { ...row, logo: row.logo === null ? null : Buffer.from(row.logo) };
}

export async function saveBranding(
  tx: Queryable,
  tenantId: string,
  values: BrandingRow,
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO tenant_branding (tenant_id, logo, logo_type, footer, updated_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id) DO UPDATE SET logo = $2, logo_type = $3, footer = $4, updated_at = $5`,
    [tenantId, values.logo, values.logo_type, values.footer, at],
  );
}
