// The tenant_branding row: logo bytes and footer text of the tenant's PDFs.
import type { Queryable } from '@cr/service-kit';

export interface BrandingRow {
  logo: Buffer | null;
  logo_type: 'image/png' | 'image/jpeg' | null;
  footer: string | null;
}

/** The row as either engine returns it: PGlite gives bytea as Uint8Array, node-postgres as Buffer. */
export interface StoredBranding {
  logo: Buffer | Uint8Array | null;
  logo_type: BrandingRow['logo_type'];
  footer: string | null;
}

export function brandingOf(row: StoredBranding): BrandingRow {
  return {
    logo: row.logo === null ? null : Buffer.from(row.logo),
    logo_type: row.logo_type,
    footer: row.footer,
  };
}

/** The branding's columns in a statement that reads it with other rows, `LEFT JOIN tenant_branding b`. */
export const JOINED_BRANDING_COLUMNS =
  'b.tenant_id IS NOT NULL AS has_branding, b.logo AS branding_logo, b.logo_type AS branding_logo_type, b.footer AS branding_footer';

export interface JoinedBranding {
  has_branding: boolean;
  branding_logo: StoredBranding['logo'];
  branding_logo_type: StoredBranding['logo_type'];
  branding_footer: string | null;
}

export function joinedBrandingOf(row: JoinedBranding): BrandingRow | undefined {
  if (!row.has_branding) return undefined;
  return brandingOf({
    logo: row.branding_logo,
    logo_type: row.branding_logo_type,
    footer: row.branding_footer,
  });
}

export async function findBranding(tx: Queryable, tenantId: string): Promise<BrandingRow | undefined> {
  const r = await tx.query<StoredBranding>(
    'SELECT logo, logo_type, footer FROM tenant_branding WHERE tenant_id = $1',
    [tenantId],
  );
  const row = r.rows[0];
  return row ? brandingOf(row) : undefined;
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
