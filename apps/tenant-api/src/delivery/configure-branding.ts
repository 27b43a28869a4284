// Use case of POST /api/configurar/marca: replaces the logo and footer of the tenant's PDFs. The logo
// must really be a PNG or JPEG of at most 150 KB, read whole (not by what the client says): every PDF of the
// tenant decodes it, so a damaged or huge image is refused here, naming what is wrong (@cr/pdf's logo.ts).
import { MarcaConfigRequest, type MarcaConfigResponse } from '@cr/contracts';
import { isPng, logoProblem } from '@cr/pdf';
import { AppError, type Db, parseBody } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { type TenantLimiter, takeTenantSlot } from '../tenancy/tenant-rate-limit';
import { type BrandingRow, saveBranding } from './branding-repository';

export const MAX_LOGO_BYTES = 150 * 1024;

/** Of a logo logoProblem accepted: a PNG or else a JPEG. */
function logoType(bytes: Buffer): 'image/png' | 'image/jpeg' {
  return isPng(bytes) ? 'image/png' : 'image/jpeg';
}

export function describeBranding(row: BrandingRow | undefined): MarcaConfigResponse['data'] {
  return {
    logo: row?.logo && row.logo_type ? { tipo: row.logo_type, bytes: row.logo.length } : null,
    pieDePagina: row?.footer ?? null,
  };
}

export interface BrandingDeps {
  db: Db;
  now: () => Date;
  /** BRANDING_WRITE_RATE_LIMIT per tenant: a new logo costs every tenant's event loop its decoding once. */
  brandingWriteLimiter: TenantLimiter;
}

export async function configureBranding(
  deps: BrandingDeps,
  input: { tenantId: string; body: unknown },
): Promise<MarcaConfigResponse['data']> {
  const body = parseBody(MarcaConfigRequest, input.body);
  await takeTenantSlot(deps.db, deps.brandingWriteLimiter, input.tenantId, 'branding changes');
  let logo: Buffer | null = null;
  if (typeof body.logo === 'string') {
    logo = Buffer.from(body.logo, 'base64');
    if (logo.length > MAX_LOGO_BYTES) {
      throw new AppError(
        'bad_request',
        `logo: must be at most ${MAX_LOGO_BYTES / 1024} KB (got ${Math.ceil(logo.length / 1024)} KB)`,
      );
    }
    const problem = logoProblem(logo);
    if (problem) throw new AppError('bad_request', `logo: ${problem}`);
  }
  const row: BrandingRow = {
    logo,
    logo_type: logo ? logoType(logo) : null,
    footer: typeof body.pieDePagina === 'string' ? body.pieDePagina.trim() || null : null,
  };
  await withTenant(deps.db, input.tenantId, (tx) => saveBranding(tx, input.tenantId, row, deps.now()));
  return describeBranding(row);
}
