// The opened signing material is kept per issuer and version (migration 0070): a submission reuses it while
// the issuer is unchanged, and any update — through this process or another one sharing the database —
// makes every process open the new material. An issuer deleted and registered again never matches a cached
// version, and the cache is bounded.
import { type Db, openDatabase } from '@cr/service-kit';
import { latch } from '@cr/testkit';
import { SigningMaterialLoader } from '../src/emisor/load-signing-material';
import type { CertificateOpener } from '../src/emisor/p12-pool';
import { post } from './support/client';
import { documentBody } from './support/document-mother';
import { issuerBody } from './support/issuer-mother';
import { type TestApp, startTestApp } from './support/test-app';

let ctx: TestApp;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

const acme = { tenantId: 'acme', identificacion: '3101123456' };

describe('signing material cache', () => {
  it('when the issuer is unchanged, then the opened material is reused; after an update every loader reopens it', async () => {
    expect((await post(ctx, 'acme', '/api/enviar/emisor', issuerBody())).status).toBe(200);
    const here = new SigningMaterialLoader(ctx.deps);
    const otherProcess = new SigningMaterialLoader(ctx.deps);
    const first = await here.load(acme);
    expect(await here.load(acme)).toBe(first);
    expect(here.size).toBe(1);
    expect((await otherProcess.load(acme)).claveHacienda).toBe('S3cr3t-Hacienda!');

    const renewed = issuerBody({
      nombreComercial: 'Acme Renovada',
      claveHacienda: Buffer.from('Otra-Clave-2026!').toString('base64'),
    });
    expect((await post(ctx, 'acme', '/api/actualizar/emisor', renewed)).status).toBe(200);
    const afterUpdate = await here.load(acme);
    expect(afterUpdate).not.toBe(first);
    expect(afterUpdate.claveHacienda).toBe('Otra-Clave-2026!');
    expect(afterUpdate.nombreComercial).toBe('Acme Renovada');
    const seenElsewhere = await otherProcess.load(acme);
    expect(seenElsewhere.claveHacienda).toBe('Otra-Clave-2026!');
    expect(await otherProcess.load(acme)).toBe(seenElsewhere);
  });

  it('when an issuer is removed and registered again, then the cached material is not reused', async () => {
    const loader = new SigningMaterialLoader(ctx.deps);
    const body = issuerBody({ identificacion: 3101555444, usuarioHacienda: 'cpj-3-101-555444@stag' });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', body)).status).toBe(200);
    const ref = { tenantId: 'acme', identificacion: '3101555444' };
    const before = await loader.load(ref);
    await ctx.db.query("DELETE FROM issuers WHERE tenant_id = 'acme' AND identificacion = '3101555444'");
    await expect(loader.load(ref)).rejects.toMatchObject({ code: 'not_found' });
    const again = issuerBody({
      identificacion: 3101555444,
      usuarioHacienda: 'cpj-3-101-555444@stag',
      claveHacienda: Buffer.from('Nueva-Alta-1!').toString('base64'),
    });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', again)).status).toBe(200);
    const after = await loader.load(ref);
    expect(after).not.toBe(before);
    expect(after.claveHacienda).toBe('Nueva-Alta-1!');
  });

  it('when more issuers are used than the limit, then the least recently used is dropped', async () => {
    const loader = new SigningMaterialLoader(ctx.deps, 1);
    await loader.load(acme);
    await loader.load({ tenantId: 'acme', identificacion: '3101555444' });
    expect(loader.size).toBe(1);
    const reopened = await loader.load(acme);
    expect(reopened.identificacion).toBe('3101123456');
    expect(loader.size).toBe(1);
  });

  it('when the limit is 0, then the loader still keeps the issuer it opened last', async () => {
    const loader = new SigningMaterialLoader(ctx.deps, 0);
    const opened = await loader.load(acme);
    expect(loader.size).toBe(1);
    expect(await loader.load(acme)).toBe(opened);
  });

  it('when a submission uses held material without reading the issuer, then that use keeps it from being dropped first', async () => {
    const third = { tenantId: 'acme', identificacion: '3101666777' };
    const body = issuerBody({ identificacion: 3101666777, usuarioHacienda: 'cpj-3-101-666777@stag' });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', body)).status).toBe(200);
    const loader = new SigningMaterialLoader(ctx.deps, 2);
    const other = { tenantId: 'acme', identificacion: '3101555444' };
    await loader.load(acme);
    await loader.load(other);
    expect(loader.peek(acme)).toBeDefined();
    await loader.load(third);
    expect(loader.peek(acme)).toBeDefined();
    expect(loader.peek(other)).toBeUndefined();
  });

  it('when another tenant asks for the issuer, then nothing cached for acme answers it', async () => {
    const loader = new SigningMaterialLoader(ctx.deps);
    await loader.load(acme);
    await expect(loader.load({ tenantId: 'globex', identificacion: '3101123456' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it("when an issuer's .p12 is being opened, then the database serves other work meanwhile", async () => {
    // One session, as the embedded engine always has: a transaction held over the open would make this
    // SELECT wait for the key derivation, whose cost the tenant chooses with its file's iteration counts.
    const db = ctx.db.url ? await openDatabase({ databaseUrl: ctx.db.url, poolSize: 1 }) : ctx.db;
    try {
      const costly = issuerBody(
        { identificacion: 3101777888, usuarioHacienda: 'cpj-3-101-777888@stag' },
        { iterations: 100_000 },
      );
      expect((await post(ctx, 'acme', '/api/enviar/emisor', costly)).status).toBe(200);
      const loader = new SigningMaterialLoader({ ...ctx.deps, db });
      let opened = false;
      const loading = loader.load({ tenantId: 'acme', identificacion: '3101777888' }).then(() => {
        opened = true;
      });
      await db.query('SELECT 1');
      expect(opened).toBe(false);
      await loading;
      expect(opened).toBe(true);
    } finally {
      if (db !== ctx.db) await db.close();
    }
  });

  it("when several submissions need the same issuer's key at once, then it is opened once for all", async () => {
    const loader = new SigningMaterialLoader(ctx.deps);
    const [a, b, c] = await Promise.all([loader.load(acme), loader.load(acme), loader.load(acme)]);
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it("when a load's read commits only after the open it would have shared has ended, then it takes that material instead of opening again", async () => {
    const ref = { tenantId: 'acme', identificacion: '3101444333' };
    const body = issuerBody({ identificacion: 3101444333, usuarioHacienda: 'cpj-3-101-444333@stag' });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', body)).status).toBe(200);
    // The order a loaded database gives two loads: the second reads (nothing opened yet) while the first
    // opens, and its commit comes back after that open has ended and left the opens under way.
    const { promise: opening, release: openStarted } = latch();
    const { promise: openMay, release: letOpen } = latch();
    let opens = 0;
    const certificates: CertificateOpener = {
      open: async (p12, pin) => {
        opens += 1;
        openStarted();
        await openMay;
        return ctx.deps.certificates.open(p12, pin);
      },
    };
    const { promise: secondRead, release: secondReadDone } = latch();
    const { promise: commitMay, release: letCommit } = latch();
    const real = ctx.deps.db;
    let transactions = 0;
    const db: Db = {
      kind: real.kind,
      ping: () => real.ping(),
      close: () => real.close(),
      query: real.query.bind(real) as Db['query'],
      exec: (sql) => real.exec(sql),
      transaction: async (fn, options) => {
        const n = ++transactions;
        const result = await real.transaction(fn, options);
        if (n === 2) {
          secondReadDone();
          await commitMay;
        }
        return result;
      },
    };
    const loader = new SigningMaterialLoader({ ...ctx.deps, db, certificates });
    const first = loader.hold(ref);
    await opening;
    const second = loader.hold(ref);
    await secondRead;
    letOpen();
    const held = await first;
    letCommit();
    expect(await second).toBe(held);
    expect(opens).toBe(1);
  });

  it('when an open of an older version ends after the newer one was held, then the newer one stays held', async () => {
    const ref = { tenantId: 'acme', identificacion: '3101888999' };
    const body = issuerBody({ identificacion: 3101888999, usuarioHacienda: 'cpj-3-101-888999@stag' });
    expect((await post(ctx, 'acme', '/api/enviar/emisor', body)).status).toBe(200);
    // The real opener; its first open is held back until the issuer has moved on and the new version
    // been opened, the order two submissions around an actualizar can take when the first file is costly.
    const { promise: firstStarted, release: started } = latch();
    const { promise: released, release } = latch();
    let calls = 0;
    const certificates: CertificateOpener = {
      open: async (p12, pin) => {
        if (calls++ === 0) {
          started();
          await released;
        }
        return ctx.deps.certificates.open(p12, pin);
      },
    };
    const loader = new SigningMaterialLoader({ ...ctx.deps, certificates });
    const older = loader.hold(ref);
    await firstStarted;
    const renewed = { ...body, nombreComercial: 'Acme Segunda Version' };
    expect((await post(ctx, 'acme', '/api/actualizar/emisor', renewed)).status).toBe(200);
    const newer = await loader.hold(ref);
    expect(newer.material.nombreComercial).toBe('Acme Segunda Version');
    release();
    expect(BigInt((await older).version)).toBeLessThan(BigInt(newer.version));
    expect(loader.peek(ref)).toBe(newer);
    expect(await loader.hold(ref)).toBe(newer);
    expect(calls).toBe(2);
  });

  it('when another process changes the issuer after this one opened its key, then the next document is signed with the new data', async () => {
    const first = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 5101));
    expect(first.status).toBe(200);
    // As another process's actualizar would: the row changes and its version moves (migration 0070).
    await ctx.db.query(
      "UPDATE issuers SET nombre = 'ACME RENOVADA SOCIEDAD ANONIMA' WHERE tenant_id = 'acme' AND identificacion = '3101123456'",
    );
    const second = await post(ctx, 'acme', '/api/enviar/items', documentBody('invoice', 5102));
    expect(second.status).toBe(200);
    const xml = async (clave: string) =>
      (await ctx.db.query<{ xml: string }>('SELECT xml FROM documents WHERE clave = $1', [clave])).rows[0]!
        .xml;
    expect(await xml(first.body.clave)).not.toContain('ACME RENOVADA');
    expect(await xml(second.body.clave)).toContain('<Nombre>ACME RENOVADA SOCIEDAD ANONIMA</Nombre>');
  });
});
