// Loads the pinned CA bundles: HACIENDA_CA_BUNDLE, the CAs Hacienda's MensajeHacienda seal must chain to, and
// RECEPCION_CA_BUNDLE, the CAs that issue taxpayers' signing certificates (suppliers' documents are held to
// it). A bundle that is set but unreadable stops the start: the operator asked for verification and would
// silently lose it.
import { readFileSync } from 'node:fs';
import { HaciendaXmlError, type TrustedSigner, trustedSigner } from '@cr/hacienda-xml';
import type { TenantConfig } from './config';

export class PinnedTrustError extends Error {
  constructor(setting: string, message: string) {
    super(`${setting}: ${message}`);
    this.name = 'PinnedTrustError';
  }
}

function loadBundle(setting: string, path: string | undefined, signerId?: string): TrustedSigner | undefined {
  if (!path) return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new PinnedTrustError(
      setting,
      `${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    return trustedSigner(pem, signerId);
  } catch (err) {
    if (err instanceof HaciendaXmlError) throw new PinnedTrustError(setting, `${path}: ${err.message}`);
    throw err;
  }
}

export function loadHaciendaTrust(
  config: Pick<TenantConfig, 'HACIENDA_CA_BUNDLE' | 'HACIENDA_SIGNER_ID'>,
): TrustedSigner | undefined {
  return loadBundle('HACIENDA_CA_BUNDLE', config.HACIENDA_CA_BUNDLE, config.HACIENDA_SIGNER_ID);
}

/** Any certificate the bundle's CAs issued passes: the issuer's own id is checked against the document. */
export function loadSupplierTrust(
  config: Pick<TenantConfig, 'RECEPCION_CA_BUNDLE'>,
): TrustedSigner | undefined {
  return loadBundle('RECEPCION_CA_BUNDLE', config.RECEPCION_CA_BUNDLE);
}
