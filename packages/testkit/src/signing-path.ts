// Why the benches' yardstick, raw RSA-2048 signing, moves between machines that bear the same model name: the
// OpenSSL in Node (3.0) signs RSA-2048 with AVX-512 IFMA where the CPU has it, about twice the rate of its
// path without it, and nothing else the product does gains from those instructions. A run on a host without
// them, or one whose hypervisor hides them, halves the yardstick and doubles every ratio to it. So the benches
// whose goal is a ratio also measure the signing rate with IFMA hidden from OpenSSL (OPENSSL_ia32cap, read
// once when OpenSSL starts, hence in a child process): the same yardstick on either kind of host.
import { spawn } from 'node:child_process';
import { readProcOrEmpty } from './process-cpu';

/** OPENSSL_ia32cap's value that hides AVX-512 IFMA (CPUID leaf 7, EBX bit 21) from OpenSSL, and nothing else. */
export const WITHOUT_IFMA = ':~0x200000';
const IFMA_BIT = 0x200000n;

export interface SigningPath {
  /** The CPU reports AVX-512 IFMA (`avx512ifma` in /proc/cpuinfo). */
  cpuHasIfma: boolean;
  /** OpenSSL signs with it: the CPU has it and OPENSSL_ia32cap does not hide it. */
  usesIfma: boolean;
  openssl: string;
}

/**
 * Whether OPENSSL_ia32cap leaves IFMA to OpenSSL. Its form is `[~]0xN[:[~]0xM]`: the part after the colon is
 * the leaf-7 word, `~` clearing the bits it names from what the CPU reports, no `~` replacing them.
 */
function ia32capAllowsIfma(value: string | undefined): boolean {
  const leaf7 = value?.split(':')[1]?.trim();
  if (!leaf7) return true;
  const negated = leaf7.startsWith('~');
  let bits: bigint;
  try {
    bits = BigInt(negated ? leaf7.slice(1) : leaf7);
  } catch {
    return true; // OpenSSL ignores a value it cannot read
  }
  const named = (bits & IFMA_BIT) !== 0n;
  return negated ? !named : named;
}

export function signingPath(
  cpuinfo: string = readProcOrEmpty('/proc/cpuinfo'), // '' off Linux: no flags, so no IFMA claimed
  env: NodeJS.ProcessEnv = process.env,
): SigningPath {
  const flags = /^flags\s*:\s*(.*)$/m.exec(cpuinfo)?.[1]?.split(/\s+/) ?? [];
  const cpuHasIfma = flags.includes('avx512ifma');
  return {
    cpuHasIfma,
    usesIfma: cpuHasIfma && ia32capAllowsIfma(env.OPENSSL_ia32cap),
    openssl: process.versions.openssl,
  };
}

/** One clause for a bench's yardstick sentence: which of OpenSSL's RSA paths the figures were measured on. */
export function describeSigningPath(path: SigningPath = signingPath()): string {
  const openssl = `OpenSSL ${path.openssl}`;
  if (path.usesIfma)
    return `${openssl} signs with AVX-512 IFMA on this CPU, about twice its rate without it, a gain nothing else the product does shares`;
  if (path.cpuHasIfma)
    return `${openssl} signs without AVX-512 IFMA (this CPU has it; OPENSSL_ia32cap hides it)`;
  return `${openssl} signs without AVX-512 IFMA (this CPU does not report it)`;
}

const SIGNER = `
  const { Worker } = require('node:worker_threads');
  const [threads, seconds] = process.argv.slice(1).map(Number);
  const body = \`
    const { generateKeyPairSync, randomBytes, sign } = require('node:crypto');
    const { parentPort, workerData } = require('node:worker_threads');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const data = randomBytes(512);
    for (let i = 0; i < 50; i++) sign('sha256', data, privateKey);
    parentPort.once('message', () => {
      const t0 = process.hrtime.bigint();
      let n = 0;
      while (Number(process.hrtime.bigint() - t0) < workerData * 1e9) { sign('sha256', data, privateKey); n++; }
      parentPort.postMessage(n / (Number(process.hrtime.bigint() - t0) / 1e9));
    });
    parentPort.postMessage('ready');\`;
  const workers = Array.from({ length: threads }, () => new Worker(body, { eval: true, workerData: seconds }));
  Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))))
    .then(() => Promise.all(workers.map((w) => new Promise((r) => { w.once('message', r); w.postMessage('go'); }))))
    .then((rates) => { process.stdout.write(String(rates.reduce((a, b) => a + b, 0))); process.exit(0); });`;

/**
 * RSA-2048 SHA-256 signatures/s summed over `threads` threads signing at once, in a child process (its own
 * OpenSSL, so `withoutIfma` can hide IFMA from it). The threads start together once each has its key.
 */
export function rawSigningRateOnThreads(
  threads: number,
  seconds: number,
  options: { withoutIfma?: boolean } = {},
): Promise<number> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
  if (options.withoutIfma) env.OPENSSL_ia32cap = WITHOUT_IFMA;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', SIGNER, String(threads), String(seconds)], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      const rate = Number(out);
      if (code === 0 && Number.isFinite(rate) && rate > 0) resolve(rate);
      else reject(new Error(`the signing child exited with ${code}: ${err || out}`));
    });
  });
}
