// The issuer's IdP access token for its ambiente, through the TokenManager (cached, refreshed, single-flight,
// ≤ 10 grants per issuer per minute). The credentials are read on every call, so a session opened with
// credentials replaced since (actualizar/emisor, in any process) is dropped; reading them costs one version
// query, the SigningMaterialLoader decrypting only when the issuer changed. Failures become job results:
// wait for the limiter, or retry on the backoff.
import { type Ambiente, IdpError, RateLimitedError, type TokenKey } from '@cr/hacienda-client';
import { type Job, type JobResult, computeBackoff, jobResult } from '@cr/jobs';
import type { DocumentRow } from '../documents/document-repository';
import type { SubmissionDeps } from '../documents/submission-deps';

export function tokenKeyOf(tenantId: string, doc: Pick<DocumentRow, 'emisor' | 'ambiente'>): TokenKey {
  return {
    issuerId: `${tenantId}/${doc.emisor}`,
    ambiente: (Number(doc.ambiente) === 1 ? 1 : 2) as Ambiente,
  };
}

/** The issuer's token keys in both ambientes (an update may have moved it from one to the other). */
export function issuerTokenKeys(tenantId: string, identificacion: string): TokenKey[] {
  return ([1, 2] as const).map((ambiente) => tokenKeyOf(tenantId, { emisor: identificacion, ambiente }));
}

export function retryOnSchedule(
  now: Date,
  attempt: number,
  schedule: readonly number[],
  reason: string,
  capMs?: number,
): JobResult {
  const delay = computeBackoff(attempt, { schedule, ...(capMs === undefined ? {} : { capMs }) });
  return jobResult.retryAt(new Date(now.getTime() + delay), reason);
}

export async function accessTokenFor(
  deps: SubmissionDeps,
  job: Job<{ tenantId: string }>,
  doc: Pick<DocumentRow, 'emisor' | 'ambiente'>,
  now: Date,
  schedule: readonly number[],
): Promise<{ token: string } | { result: JobResult }> {
  const { tenantId } = job.payload;
  try {
    const token = await deps.hacienda.tokens.getToken(tokenKeyOf(tenantId, doc), async () => {
      const m = await deps.signing.load({ tenantId, identificacion: doc.emisor });
      return { username: m.usuarioHacienda, password: m.claveHacienda };
    });
    return { token };
  } catch (err) {
    if (err instanceof RateLimitedError) {
      return {
        result: jobResult.retryAt(new Date(now.getTime() + err.retryAfterMs), 'token grant limit reached'),
      };
    }
    if (err instanceof IdpError) {
      if (err.kind === 'invalid_credentials') {
        deps.logger.warn(
          'hacienda: the IdP refused the issuer credentials; fix them with actualizar/emisor',
          {
            tenantId,
            emisor: doc.emisor,
          },
        );
      }
      return { result: retryOnSchedule(now, job.attempts, schedule, `idp ${err.kind}`) };
    }
    throw err;
  }
}
