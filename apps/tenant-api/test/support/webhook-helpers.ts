// Shared steps of the webhook tests: a movable clock, draining the worker, raising a final-state event the
// way the follow-up does (enqueue in a transaction), and reading the raw delivery rows.
import { enqueue } from '@cr/jobs';
import type { Db } from '@cr/service-kit';
import { withTenant } from '../../src/db/with-tenant';
import { WEBHOOK_QUEUE, type WebhookJobPayload } from '../../src/webhooks/webhook-event';
import { type TestApp, startTestApp } from './test-app';
import { WebhookReceiver } from './webhook-receiver';

/** A clock that only moves when told; starts a little ahead of real time so jobs enqueued now are due. */
export class TestClock {
  ms = Date.now() + 1_000;
  readonly now = () => new Date(this.ms);
  advance(ms: number): void {
    this.ms += ms;
  }
  /**
   * Moves the clock a minute past the real time unless it is already further: jobs are enqueued at the real
   * time, so a clock that the test's own set-up has overtaken (a slow start, a test run alone, before any
   * test advanced it) would see them as not yet due.
   */
  keepAhead(): void {
    this.ms = Math.max(this.ms, Date.now() + 60_000);
  }
  get unixSeconds(): number {
    return Math.floor(this.ms / 1000);
  }
}

/**
 * One app on the test clock and one webhook endpoint for a file of tests: started before its first test and
 * stopped after its last; before each test the clock is kept ahead and the endpoint forgets what it received
 * and answers 2xx again.
 */
export function useWebhookHarness(clock: TestClock): {
  readonly ctx: TestApp;
  readonly receiver: WebhookReceiver;
} {
  let ctx: TestApp | undefined;
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    ctx = await startTestApp({ now: clock.now });
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver?.stop();
    await ctx?.close();
  });
  beforeEach(() => {
    clock.keepAhead();
    receiver!.received.length = 0;
    receiver!.script = [];
  });
  const started = <T>(what: string, value: T | undefined): T => {
    if (value === undefined)
      throw new Error(`useWebhookHarness: the ${what} is used before beforeAll started it`);
    return value;
  };
  return {
    get ctx() {
      return started('app', ctx);
    },
    get receiver() {
      return started('receiver', receiver);
    },
  };
}

/** Runs the worker until nothing is due at the current clock; returns how many jobs ran. */
export async function drain(ctx: TestApp): Promise<number> {
  let total = 0;
  for (;;) {
    const ran = await ctx.worker.runOnce();
    if (ran === 0) return total;
    total += ran;
  }
}

/** What the follow-up does on a final state (interface agreement): one deduplicated job per state. */
export async function raiseFinalStateEvent(
  db: Db,
  tenantId: string,
  doc: { id: string; estado: string },
): Promise<string> {
  const payload: WebhookJobPayload = { tenantId, documentId: doc.id };
  const job = await db.transaction((tx) =>
    enqueue(tx, { queue: WEBHOOK_QUEUE, tenant: tenantId, key: `webhook:${doc.id}:${doc.estado}`, payload }),
  );
  return job.id;
}

export interface RawDelivery {
  event_id: string;
  attempt: number;
  url: string;
  status: number | null;
  latency_ms: number | null;
  error: string | null;
}

export async function deliveriesOf(db: Db, tenantId: string, documentId: string): Promise<RawDelivery[]> {
  return withTenant(db, tenantId, async (tx) => {
    const r = await tx.query<RawDelivery>(
      `SELECT event_id, attempt, url, status, latency_ms, error FROM webhook_deliveries
       WHERE tenant_id = $1 AND document_id = $2 ORDER BY created_at, attempt`,
      [tenantId, documentId],
    );
    return r.rows;
  });
}
