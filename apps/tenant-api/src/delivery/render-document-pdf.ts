// Use case of GET /api/descargar/{clave}/pdf, also used by the e-mail and the webhook: the signed XML of a
// document of the tenant rendered with the tenant's branding. Rendering is deterministic, so the download,
// the attachment and the webhook's PDF of one document are the same bytes while the branding is unchanged.
import { createHash } from 'node:crypto';
import { type PdfLayout, renderComprobantePdf } from '@cr/pdf';
import { AppError, type Db } from '@cr/service-kit';
import { LRUCache } from 'lru-cache';
import { withTenant } from '../db/with-tenant';
import type { TenantConcurrency } from '../tenancy/tenant-concurrency';
import { findDocumentByClave, findDocumentOrAnswerByClave } from '../documents/document-repository';
import { type BrandingRow, findBranding } from './branding-repository';
import { comprobanteView } from './comprobante-views';

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

/**
 * Renders of the last few documents, shared: an accepted document's webhook job and e-mail job each need its
 * PDF within milliseconds of each other (two renders per document, about a tenth of the tenant-api's CPU per
 * document in the pipeline bench). The key is a digest of everything the output depends on, so a hit is the
 * very bytes a render would give; a render in flight is shared too, and one that fails is forgotten.
 */
const renders = new LRUCache<string, Promise<Buffer>>({ max: 32 });

function renderKey(xml: string, branding: BrandingRow | undefined, layout: PdfLayout | undefined): string {
  // Each part is preceded by its length, so no footer, logo or XML can pass for another combination.
  const hash = createHash('sha256');
  for (const part of [layout ?? '', branding?.footer ?? '', branding?.logo ?? Buffer.alloc(0), xml]) {
    const bytes = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
    hash.update(`${bytes.length}:`).update(bytes);
  }
  return hash.digest('base64');
}

export interface RenderOptions {
  layout?: PdfLayout;
}

export function renderPdf(
  xml: string,
  branding: BrandingRow | undefined,
  { layout }: RenderOptions = {},
): Promise<Buffer> {
  const key = renderKey(xml, branding, layout);
  return renders.get(key) ?? startRender(key, xml, branding, { layout });
}

function startRender(
  key: string,
  xml: string,
  branding: BrandingRow | undefined,
  { layout }: RenderOptions,
): Promise<Buffer> {
  // The view the e-mail job of the same document has read for its recipients, when it went first.
  const rendering = renderComprobantePdf(comprobanteView(xml), {
    ...(layout ? { layout } : {}),
    branding: {
      ...(branding?.logo ? { logo: branding.logo } : {}),
      ...(branding?.footer ? { footer: branding.footer } : {}),
    },
  });
  renders.set(key, rendering);
  // A failed render is forgotten (unless a later one already took its place), so the next caller tries again.
  rendering.catch(() => {
    if (renders.peek(key) === rendering) renders.delete(key);
  });
  return rendering;
}

/** The PDF of a document and the branding its caller has already read. */
export function renderPrintablePdf(
  doc: RenderablePdfSource,
  branding: BrandingRow | undefined,
  layout?: PdfLayout,
): Promise<Buffer> {
  assertPrintable(doc);
  return renderPdf(doc.xml, branding, { layout });
}

export interface PdfDownloadDeps {
  db: Db;
  /** PDF_RENDERS_PER_TENANT: downloads one tenant may have rendering at once. */
  pdfRenders: Pick<TenantConcurrency, 'run'>;
}

/**
 * The download: the document and the branding are read first; a render already made (or under way) for the
 * same bytes is answered without a slot, and only a new render takes one of the tenant's PDF_RENDERS_PER_TENANT.
 */
export async function renderDocumentPdf(
  deps: PdfDownloadDeps,
  input: { tenantId: string; clave: string; layout?: PdfLayout },
): Promise<Buffer> {
  const { tenantId, clave, layout } = input;
  const loaded = await withTenant(deps.db, tenantId, async (tx) => {
    const row = await findDocumentByClave(tx, tenantId, clave);
    if (!row) {
      // /xml and /respuesta answer a received document's clave with its MensajeReceptor; say why /pdf does not.
      const answer = await findDocumentOrAnswerByClave(tx, tenantId, clave, ['clave']);
      return answer ? ('answer' as const) : undefined;
    }
    return { row, branding: await findBranding(tx, tenantId) };
  });
  if (!loaded) throw new AppError('not_found', `clave: document ${clave} not found`);
  if (loaded === 'answer') {
    throw new AppError(
      'conflict',
      `clave: ${clave} is a received document; its answer (MensajeReceptor) has no PDF: download it with /xml, and Hacienda's verdict with /respuesta`,
    );
  }
  assertPrintable(loaded.row);
  const { xml } = loaded.row;
  const key = renderKey(xml, loaded.branding, layout);
  const shared = renders.get(key);
  if (shared) return shared;
  // Rendered outside the transaction: no connection is held while the CPU works.
  return deps.pdfRenders.run(
    tenantId,
    () => renders.get(key) ?? startRender(key, xml, loaded.branding, layout ? { layout } : {}),
  );
}
