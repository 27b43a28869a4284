// Loads HACIENDA_CA_BUNDLE, the CA certificates Hacienda's MensajeHacienda seal must chain to. A bundle that is
// set but unreadable stops the start (the operator asked for verification and would silently lose it).
import { readFileSync } from 'node:fs';
import { HaciendaXmlError, type TrustedSigner, trustedSigner } from '@cr/hacienda-xml';
import type { TenantConfig } from '../config';

export class HaciendaTrustError extends Error {
  constructor(message: string) {
    super(`HACIENDA_CA_BUNDLE: ${message}`);
    this.name = 'HaciendaTrustError';
  }
}

export function loadHaciendaTrust(
  config: Pick<TenantConfig, 'HACIENDA_CA_BUNDLE' | 'HACIENDA_SIGNER_ID'>,
): TrustedSigner | undefined {
  const path = config.HACIENDA_CA_BUNDLE;
  if (!path) return undefined;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new HaciendaTrustError(
      `${path} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    return trustedSigner(pem, config.HACIENDA_SIGNER_ID);
  } catch (err) {
    if (err instanceof HaciendaXmlError) throw new HaciendaTrustError(`${path}: ${err.message}`);
    throw err;
  }
}
