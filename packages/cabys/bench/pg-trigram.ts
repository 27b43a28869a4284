// `pnpm bench:pg`: the alternative measured for docs/decisions/0006-cabys-search.md: the same catalogue
// and query set in PostgreSQL (embedded PGlite) with unaccent + pg_trgm (GIN index, word_similarity).
// Prints its numbers; it does not write docs/performance.md.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { haciendaDataDir } from '@cr/testkit';
import { parseCabysJson } from '../src';

const QUERIES = [
  'cafe',
  'leche',
  'tomates',
  'man',
  'cervza',
  'mantequila',
  'jugo tomate',
  'servicios de contabilidad',
  'harina de trigo',
  'telefono celular',
  'c',
  'choco',
  'paracetamol',
  '2132100000100',
];

async function main(): Promise<void> {
  const entries = parseCabysJson(readFileSync(join(haciendaDataDir(), 'cabys.json'), 'utf8'));
  // the contrib modules are ES modules only
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  const { unaccent } = await import('@electric-sql/pglite/contrib/unaccent');
  const db = await PGlite.create({ extensions: { pg_trgm, unaccent } });
  await db.exec(`CREATE EXTENSION pg_trgm; CREATE EXTENSION unaccent;
    CREATE TABLE cabys (codigo text PRIMARY KEY, descripcion text NOT NULL, impuesto numeric NOT NULL, folded text NOT NULL);`);
  let t = performance.now();
  for (let i = 0; i < entries.length; i += 1000) {
    const chunk = entries.slice(i, i + 1000);
    await db.query(
      `INSERT INTO cabys (codigo, descripcion, impuesto, folded)
       SELECT c, d, x, lower(unaccent(d)) FROM unnest($1::text[], $2::text[], $3::numeric[]) AS t(c, d, x)`,
      [chunk.map((e) => e.codigo), chunk.map((e) => e.descripcion), chunk.map((e) => e.impuesto)],
    );
  }
  await db.exec('CREATE INDEX cabys_trgm ON cabys USING gin (folded gin_trgm_ops)');
  const buildMs = performance.now() - t;
  const sql = `SELECT codigo, descripcion, impuesto FROM cabys
    WHERE codigo = $1 OR lower(unaccent($1)) <% folded
    ORDER BY (codigo = $1) DESC, word_similarity(lower(unaccent($1)), folded) DESC, length(descripcion), codigo LIMIT 50`;
  for (const q of QUERIES) await db.query(sql, [q]);
  const samples: number[] = [];
  t = performance.now();
  for (let r = 0; r < 10; r++) {
    for (const q of QUERIES) {
      const s = performance.now();
      await db.query(sql, [q]);
      samples.push(performance.now() - s);
    }
  }
  const total = performance.now() - t;
  samples.sort((a, b) => a - b);
  const pct = (p: number) =>
    (samples[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))] as number).toFixed(2);
  process.stdout.write(
    `PGlite unaccent+pg_trgm: load+index ${buildMs.toFixed(0)} ms, ${((samples.length / total) * 1000).toFixed(0)} queries/s, p50 ${pct(50)} ms, p99 ${pct(99)} ms\n`,
  );
  for (const q of ['cafe', 'jugo tomate', 'cervza', 'tomates']) {
    const r = await db.query<{ descripcion: string }>(sql, [q]);
    process.stdout.write(
      `  ${q}: ${r.rows
        .slice(0, 3)
        .map((x) => x.descripcion)
        .join(' | ')}\n`,
    );
  }
  await db.close();
}

void main();
