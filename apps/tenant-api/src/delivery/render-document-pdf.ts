// Use case of GET /api/descargar/{clave}/pdf, also used by the e-mail and the webhook: the signed XML of a
// document of the tenant rendered with the tenant's branding. Rendering is deterministic, so the download,
// the attachment and the webhook's PDF of one document are the same bytes while the branding is unchanged.
import { type PdfLayout, readComprobanteView, renderComprobantePdf } from '@cr/pdf';
import { AppError, type Db, type Queryable } from '@cr/service-kit';
import { withTenant } from '../db/with-tenant';
import { findDocumentByClave } from '../documents/document-repository';
import { type BrandingRow, findBranding } from './branding-repository';

export interface RenderablePdfSource {
  clave: string;
  estado: string;
  xml: string;
}

/** Rejected or refused documents have no valid printable representation. */
export function assertPrintable(doc: Pick<RenderablePdfSource, 'clave' | 'estado'>): void {
  if (doc.estado === 'rechazado' || doc.estado === 'error') {
    throw new AppError(
      'conflict',
      `clave: document ${doc.clave} was not accepted by Hacienda (estado ${doc.estado}); it has no PDF`,
    );
  }
}

export function renderPdf(
  xml: string,
  branding: BrandingRow | undefined,
  layout?: PdfLayout,
): Promise<Buffer> {
  return renderComprobantePdf(readComprobanteView(xml), {
    ...(layout ? { layout } : {}),
    branding: {
      ...(branding?.logo ? { logo: branding.logo } : {}),
      ...(branding?.footer ? { footer: branding.footer } : {}),
    },
  });
}

/** The PDF of a document already loaded in a tenant transaction. */
export async function renderDocumentPdfIn(
  tx: Queryable,
  tenantId: string,
  doc: RenderablePdfSource,
  layout?: PdfLayout,
): Promise<Buffer> {
  assertPrintable(doc);
  return renderPdf(doc.xml, await findBranding(tx, tenantId), layout);
}

export async function renderDocumentPdf(
  deps: { db: Db },
  input: { tenantId: string; clave: string; layout?: PdfLayout },
): Promise<Buffer> {
  const { tenantId, clave } = input;
  const loaded = await withTenant(deps.db, tenantId, async (tx) => {
    const row = await findDocumentByClave(tx, tenantId, clave);
    if (!row) return undefined;
    return { row, branding: await findBranding(tx, tenantId) };
  });
  if (!loaded) throw new AppError('not_found', `clave: document ${clave} not found`);
  assertPrintable(loaded.row);
  // Rendered outside the transaction: no connection is held while the CPU works.
  return renderPdf(loaded.row.xml, loaded.branding, input.layout);
}
