// The base URL clients see: SANDBOX_PUBLIC_URL when set (behind a proxy or the launcher), otherwise the
// address the client called, so Location headers and token issuers point back where the client can reach.
import type { Request } from 'express';

export function publicBase(req: Request, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  return `${req.protocol}://${req.get('host') ?? 'localhost'}`;
}
