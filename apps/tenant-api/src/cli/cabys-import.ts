// `pnpm cabys:import <file>`: validates a CABYS catalogue (the BCCR xlsx or the JSON layout) and installs a
// normalised JSON copy as DATA_DIR/cabys.json, which the tenant-api loads at start and reloads when it changes.
// A command-line tool: its report goes to stdout/stderr, not to the service logger.
import { mkdir } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { CabysImportError, importCabysFile } from '@cr/cabys';
import { loadTenantConfig } from '../config';
import { importedCabysPath } from '../lookups/cabys-catalogue';

export async function runCabysImport(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  if (argv.length !== 1 || !argv[0] || argv[0].startsWith('-')) {
    err('usage: pnpm cabys:import <file.xlsx|file.json>');
    return 2;
  }
  // pnpm runs the script inside apps/tenant-api; a relative path means the caller's directory.
  const source = isAbsolute(argv[0]) ? argv[0] : resolve(env.INIT_CWD ?? process.cwd(), argv[0]);
  const config = loadTenantConfig(env);
  const target = importedCabysPath(config.DATA_DIR);
  try {
    await mkdir(config.DATA_DIR, { recursive: true });
    const started = performance.now();
    const file = await importCabysFile(source, target);
    out(
      `${file.entries.length} CABYS codes read from ${source} (${file.format}, ${Math.round(performance.now() - started)} ms)`,
    );
    out(`installed as ${target}; a running tenant-api picks it up within seconds, a new one at start`);
    return 0;
  } catch (e) {
    if (e instanceof CabysImportError) {
      err(`invalid CABYS file ${source}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (require.main === module) {
  runCabysImport(
    process.argv.slice(2),
    process.env,
    (l) => process.stdout.write(`${l}\n`),
    (l) => process.stderr.write(`${l}\n`),
  ).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.stderr.write(`cabys import failed: ${(e as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
