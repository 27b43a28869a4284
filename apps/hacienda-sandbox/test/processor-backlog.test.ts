// The processor advances a bounded number of documents at once: a burst waits as claves, not as parsed
// documents held in memory (issue 15: unbounded, a 50/s burst took the sandbox to 2.6 GB).
import { availableParallelism } from 'node:os';
import {
  type TestDatabase,
  createLogger,
  createTestDatabase,
  migrate,
  readMigrations,
} from '@cr/service-kit';
import { join } from 'node:path';
import { DocumentProcessor } from '../src/processor';

describe('DocumentProcessor backlog', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
    await migrate(db, readMigrations(join(__dirname, '..', 'migrations')));
  });
  afterAll(async () => {
    await db.close();
  });

  it('when many documents are due at once, then at most twice the cores are judged together and every one is judged', async () => {
    const count = 40;
    for (let i = 0; i < count; i++) {
      await db.query(
        `INSERT INTO documents (clave, fecha, emisor_tipo, emisor_numero, username, comprobante_xml, estado)
         VALUES ($1, '2026-11-26T10:00:00-06:00', '02', '3101123456', 'u', $2, 'procesando')`,
        [`clave-${i}`, Buffer.from('<x/>').toString('base64')],
      );
    }
    let judging = 0;
    let peak = 0;
    const processor = new DocumentProcessor({
      db,
      logger: createLogger({ service: 'test', level: 'error' }),
      delayMs: 0,
      callbackTimeoutMs: 1000,
      callbackRetryDelayMs: 10,
      async decide() {
        judging += 1;
        peak = Math.max(peak, judging);
        await new Promise((r) => setTimeout(r, 20));
        judging -= 1;
        return { estado: 'aceptado', findings: [], respuestaXml: '<MensajeHacienda/>' };
      },
    });
    const done = new Set<string>();
    processor.on('transition', (e: { clave: string; estado: string }) => {
      if (e.estado === 'aceptado') done.add(e.clave);
    });
    for (let i = 0; i < count; i++) processor.schedule(`clave-${i}`);
    const until = Date.now() + 30_000;
    while (done.size < count && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    await processor.close();

    expect(done.size).toBe(count);
    expect(peak).toBe(Math.min(count, availableParallelism() * 2));
    expect(processor.backlog).toEqual({ advancing: 0, waiting: 0 });
    const left = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM documents WHERE estado <> 'aceptado'",
    );
    expect(left.rows[0]?.n).toBe(0);
  });
});
