// A tenant past its budget on the platform's SMTP server (MAIL_PLATFORM_LIMIT, legitimately or by resending
// to its documents' own addresses) piles up deferred e-mails that wake every one to two minutes until the
// window frees a slot, a day for a daily budget. Each wake read the document's two XMLs (up to ~2 MB for a
// 1,000-line invoice), the branding and parsed the XML before the budget said no: measured at 159–265 ms a
// wake, the event loop held 0.4–1 s at a time; hundreds of them slow every tenant the process serves. The
// proof is the database's own: with the tenant role's SELECT on the document's XMLs withdrawn, a deferred
// e-mail's wake still defers (any read of them would be "permission denied"); with it back and the window
// freed, the e-mail goes.
import { getJob } from '@cr/jobs';
import { type RunningMailCatcher, startMailCatcher } from '@cr/mail-catcher';
import { createTenantLimiter } from '../src/tenancy/tenant-rate-limit';
import { raiseAcceptedMail } from './support/mail-helpers';
import { type TestApp, startTestApp } from './support/test-app';
import { withColumnsWithheld } from './support/withheld-columns';
import { TestClock, drain } from './support/webhook-helpers';

jest.setTimeout(60_000);

const WINDOW_SECONDS = 3_600;
const XML_COLUMNS = ['xml', 'respuesta_xml'];
const BUDGET_SPENT = "budget of e-mails through the platform's SMTP server is spent";

const clock = new TestClock();
const platformMailLimiter = createTenantLimiter('e-mails through the platform server', {
  limit: 1,
  windowSeconds: WINDOW_SECONDS,
  clock: () => clock.ms,
});

let ctx: TestApp;
let catcher: RunningMailCatcher;

beforeAll(async () => {
  catcher = await startMailCatcher({ smtpPort: 0, webPort: 0 });
  ctx = await startTestApp({
    now: clock.now,
    mail: { smtpUrl: catcher.smtpUrl, retryDelaysMs: [60_000] },
    platformMailLimiter,
  });
});
afterAll(async () => {
  await ctx?.close();
  await catcher?.stop();
});

async function mailState(tenantId: string, messageId: string) {
  const r = await ctx.db.query<{ state: string; attempts: string | number }>(
    `SELECT m.state, (SELECT count(*) FROM mail_attempts a WHERE a.tenant_id = m.tenant_id AND a.message_id = m.id) AS attempts
     FROM mail_messages m WHERE m.tenant_id = $1 AND m.id = $2`,
    [tenantId, messageId],
  );
  const row = r.rows[0]!;
  return { state: row.state, attempts: Number(row.attempts) };
}

describe("a deferred e-mail's wake while the tenant's platform budget is spent", () => {
  it('when the budget is spent, then a recorded e-mail defers again without reading its document’s XMLs, and sends once a slot frees up', async () => {
    clock.keepAhead();
    const before = catcher.catcher.messages.length;
    await raiseAcceptedMail(ctx, 'acme');
    await catcher.catcher.waitFor(before + 1);

    // Its first run records it (the recipients come from the XML) and defers: the one slot is spent.
    const waiting = await raiseAcceptedMail(ctx, 'acme');
    expect(await mailState('acme', waiting.messageId)).toEqual({ state: 'pendiente', attempts: 0 });
    const deferredOnce = await getJob(ctx.db, { key: waiting.key });
    expect(deferredOnce).toMatchObject({
      state: 'pending',
      lastError: expect.stringContaining(BUDGET_SPENT),
    });

    await withColumnsWithheld(ctx.db, 'documents', XML_COLUMNS, async () => {
      // It wakes when the slot frees up, but another e-mail of the tenant took it first (a tenant past its
      // budget has many waiting): twice it waits again, with no error and no attempt.
      for (let wake = 0; wake < 2; wake++) {
        clock.ms = (await getJob(ctx.db, { key: waiting.key }))!.runAt.getTime() + 1;
        expect(await platformMailLimiter.tryAcquire(ctx.db, 'acme')).toEqual({ ok: true });
        expect(await drain(ctx)).toBe(1);
        const job = await getJob(ctx.db, { key: waiting.key });
        expect(job).toMatchObject({ state: 'pending', lastError: expect.stringContaining(BUDGET_SPENT) });
        expect(job!.attempts).toBe(2 + wake);
        // Deferred to when the window frees its slot again, not to the mail retry schedule.
        expect(job!.runAt.getTime()).toBeGreaterThan(clock.ms + (WINDOW_SECONDS - 1) * 1000);
      }
      expect(await mailState('acme', waiting.messageId)).toEqual({ state: 'pendiente', attempts: 0 });
      expect(catcher.catcher.messages).toHaveLength(before + 1);
    });

    // The slot frees up again and nothing takes it: the next wake reads the document and sends.
    clock.ms = (await getJob(ctx.db, { key: waiting.key }))!.runAt.getTime() + 1;
    expect(await drain(ctx)).toBe(1);
    await catcher.catcher.waitFor(before + 2);
    expect(await mailState('acme', waiting.messageId)).toEqual({ state: 'enviado', attempts: 1 });
  });

  it('when the window is asked whether a slot is free, then the answer takes none', async () => {
    const limiter = createTenantLimiter('test peeks', { limit: 2, windowSeconds: 60, clock: () => clock.ms });
    expect(await limiter.peek(ctx.db, 'peeker')).toEqual({ ok: true });
    expect(await limiter.peek(ctx.db, 'peeker')).toEqual({ ok: true });
    expect(await limiter.tryAcquire(ctx.db, 'peeker')).toEqual({ ok: true });
    clock.advance(10_000);
    expect(await limiter.tryAcquire(ctx.db, 'peeker')).toEqual({ ok: true });
    // Full: the same wait tryAcquire would give (until the oldest call leaves the window), and still full.
    expect(await limiter.peek(ctx.db, 'peeker')).toEqual({ ok: false, retryAfterMs: 50_000 });
    expect(await limiter.tryAcquire(ctx.db, 'peeker')).toEqual({ ok: false, retryAfterMs: 50_000 });
    clock.advance(50_001);
    expect(await limiter.peek(ctx.db, 'peeker')).toEqual({ ok: true });
  });
});
