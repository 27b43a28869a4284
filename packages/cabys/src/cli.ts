// `tsx src/cli.ts import <file> [--out <file>]`: validates a CABYS catalogue (BCCR xlsx or JSON layout),
// reports how many codes it holds and, with --out, keeps a copy in the JSON layout. Exit 0 valid, 1 invalid,
// 2 wrong usage. This is a command-line tool: its report goes to stdout/stderr, not to the service logger.
import { CabysImportError } from './catalogue';
import { importCabysFile } from './load';

const USAGE = 'usage: cabys import <file.xlsx|file.json> [--out <copy.json>]';

export async function runCli(
  argv: string[],
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const [command, file, ...rest] = argv;
  if (command !== 'import' || !file) {
    err(USAGE);
    return 2;
  }
  let target: string | undefined;
  if (rest.length) {
    if (rest[0] !== '--out' || !rest[1] || rest.length > 2) {
      err(USAGE);
      return 2;
    }
    target = rest[1];
  }
  try {
    const started = performance.now();
    const result = await importCabysFile(file, target);
    const ms = Math.round(performance.now() - started);
    out(`${result.entries.length} CABYS codes read from ${file} (${result.format}, ${ms} ms)`);
    if (target) out(`copy written to ${target}`);
    return 0;
  } catch (e) {
    if (e instanceof CabysImportError) {
      err(`invalid CABYS file ${file}: ${e.message}`);
      return 1;
    }
    throw e;
  }
}

if (require.main === module) {
  runCli(
    process.argv.slice(2),
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
