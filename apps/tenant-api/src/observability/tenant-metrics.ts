// The tenant-api's scrape-time gauges: documents by kind and state, expiring issuer certificates, the job
// queue and the database pool. unsafe: the counts cross tenants on purpose (an operator's totals, never
// shown to a tenant: /metrics listens on its own port and carries no tenant label).
import { collectJobMetrics } from '@cr/jobs';
import { type Db, collectDbPoolMetrics, metrics, onScrape } from '@cr/service-kit';

const DAY_MS = 86_400_000;

async function unsafeCountDocumentsByKindAndState(
  db: Db,
): Promise<{ kind: string; state: string; n: number }[]> {
  const r = await db.query<{ kind: string; state: string; n: number }>(
    'SELECT tipo_doc AS kind, estado AS state, count(*)::int AS n FROM documents GROUP BY tipo_doc, estado',
  );
  return r.rows;
}

async function unsafeCountCertificates(
  db: Db,
  now: Date,
  horizon: Date,
): Promise<{ expiring: number; expired: number }> {
  const r = await db.query<{ expiring: number; expired: number }>(
    `SELECT count(*) FILTER (WHERE certificate_not_after < $2)::int AS expiring,
            count(*) FILTER (WHERE certificate_not_after < $1)::int AS expired
       FROM issuers`,
    [now.toISOString(), horizon.toISOString()],
  );
  return r.rows[0] ?? { expiring: 0, expired: 0 };
}

export function collectTenantApiMetrics(options: {
  db: Db;
  now: () => Date;
  certificateWarningDays: number;
}): () => void {
  const { db, now } = options;
  const stops = [
    collectJobMetrics(db, now),
    collectDbPoolMetrics(db),
    onScrape('documents', async () => {
      const rows = await unsafeCountDocumentsByKindAndState(db);
      metrics.documents.byState.reset();
      for (const row of rows) metrics.documents.byState.set({ kind: row.kind, state: row.state }, row.n);
    }),
    onScrape('certificates', async () => {
      const at = now();
      const counts = await unsafeCountCertificates(
        db,
        at,
        new Date(at.getTime() + options.certificateWarningDays * DAY_MS),
      );
      metrics.certificates.expiring.set(counts.expiring);
      metrics.certificates.expired.set(counts.expired);
    }),
  ];
  return () => {
    for (const stop of stops) stop();
  };
}
