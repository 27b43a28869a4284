// The iteration counts a PKCS#12 file asks for, read from its ASN.1 before any key derivation runs. node-forge
// takes the MAC's and each bag's count from the file with no upper bound and derives keys in pure JS: a
// 76-byte file asking for 2^31 iterations froze the service for an hour. Hacienda's files use 2,048 or fewer.
// Each count capped is not enough: node-forge decrypts every shrouded key bag, so ~150 bags at 100,000 each
// kept a thread busy for its whole time limit. The number of key bags and the sum of all counts are capped too.
// Pure: structure only (no password, no crypto); counts inside an encrypted safe are checked by openP12 after
// decrypting it (encryptedSafeIterations).
import forge from 'node-forge';

/** Highest iteration count accepted anywhere in a .p12 (Hacienda's files use 2,048 or fewer). */
export const MAX_P12_ITERATIONS = 100_000;
/** Most shrouded key bags accepted in a .p12 (Hacienda's hold one key, beside a chain of 3 or 4 certificates). */
export const MAX_P12_KEY_BAGS = 4;
/**
 * Most iterations accepted summed over the MAC, the encrypted safes and the key bags: six counts at the cap,
 * about a second of node-forge's key derivation, well within P12_OPEN_TIMEOUT_MS (Hacienda's files: ~6,000).
 */
export const MAX_P12_TOTAL_ITERATIONS = 600_000;

export interface P12Iterations {
  /** Where in the file: `MAC`, `encrypted safe 1`, `key bag 2`, … */
  where: string;
  /** What the count protects: the key bags are counted against MAX_P12_KEY_BAGS. */
  kind: 'mac' | 'encrypted safe' | 'key bag';
  /** As written (may be far beyond 2^53: a BigInt keeps it exact). */
  iterations: bigint;
}

const OID = {
  data: '1.2.840.113549.1.7.1',
  encryptedData: '1.2.840.113549.1.7.6',
  pkcs8ShroudedKeyBag: '1.2.840.113549.1.12.10.1.2',
  safeContentsBag: '1.2.840.113549.1.12.10.1.6',
  pbes2: '1.2.840.113549.1.5.13',
  pbkdf2: '1.2.840.113549.1.5.12',
};
/** PKCS#12 v1 PBE (pbeWithSHAAnd…) and PKCS#5 v1.5 PBES1: params are SEQUENCE { salt, iterations }. */
const PBE_PREFIXES = ['1.2.840.113549.1.12.1.', '1.2.840.113549.1.5.'];

type Node = forge.asn1.Asn1;
/** node-forge's PBE cipher factory (present at run time, missing from @types/node-forge). */
const pbe = (
  forge.pki as unknown as {
    pbe: { getCipher(oid: string, params: Node, password: string): forge.cipher.BlockCipher };
  }
).pbe;
const T = forge.asn1.Type;
const CONTEXT = forge.asn1.Class.CONTEXT_SPECIFIC;

function children(node: Node | undefined): Node[] {
  return node && Array.isArray(node.value) ? (node.value as Node[]) : [];
}

function oidOf(node: Node | undefined): string | undefined {
  if (!node || node.type !== T.OID || typeof node.value !== 'string') return undefined;
  return forge.asn1.derToOid(node.value);
}

/** What integerOf answers for an INTEGER longer than 16 bytes: beyond every cap, whatever its exact value. */
const HUGE = 1n << 128n;

/**
 * An INTEGER's value, exactly up to 16 bytes (a count of 2^64 must not wrap to something small); a longer one
 * is HUGE (negative ones stay negative). This runs on the event loop before any thread: building a 150 KB
 * INTEGER byte by byte cost quadratic time (and its decimal form would be 360,000 digits in the message).
 */
function integerOf(node: Node | undefined): bigint | undefined {
  if (!node || node.type !== T.INTEGER || typeof node.value !== 'string' || node.value.length === 0)
    return undefined;
  if (node.value.length > 16) return node.value.charCodeAt(0) & 0x80 ? -HUGE : HUGE;
  let v = 0n;
  for (let i = 0; i < node.value.length; i++) v = (v << 8n) | BigInt(node.value.charCodeAt(i));
  // Negative (two's complement): never a valid count; report it as such.
  if (node.value.charCodeAt(0) & 0x80) v -= 1n << BigInt(8 * node.value.length);
  return v;
}

/** An OCTET STRING's bytes, joining the parts of a constructed (BER) one. */
function octetsOf(node: Node | undefined): string | undefined {
  if (!node) return undefined;
  if (typeof node.value === 'string') return node.value;
  return children(node)
    .map((c) => octetsOf(c) ?? '')
    .join('');
}

function parse(bytes: string): Node | undefined {
  try {
    return forge.asn1.fromDer(forge.util.createBuffer(bytes), false);
  } catch {
    return undefined;
  }
}

/** The iteration count of an encryption AlgorithmIdentifier (PBE, PBES1 or PBES2/PBKDF2), if it has one. */
export function algorithmIterations(algorithm: Node | undefined): bigint | undefined {
  const [oidNode, params] = children(algorithm);
  const oid = oidOf(oidNode);
  if (!oid) return undefined;
  if (oid === OID.pbes2) {
    const [kdf] = children(params);
    const [kdfOid, kdfParams] = children(kdf);
    if (oidOf(kdfOid) !== OID.pbkdf2) return undefined;
    return integerOf(children(kdfParams)[1]);
  }
  if (PBE_PREFIXES.some((p) => oid.startsWith(p))) return integerOf(children(params)[1]);
  return undefined;
}

/** Every count a SafeContents (decoded) shows: shrouded key bags, and nested safe-contents bags. */
export function safeContentsIterations(safeContents: Node | undefined, depth = 0): P12Iterations[] {
  const out: P12Iterations[] = [];
  if (depth > 4) return out;
  let keyBag = 0;
  for (const bag of children(safeContents)) {
    const [bagId, wrapped] = children(bag);
    const oid = oidOf(bagId);
    const value = children(wrapped)[0];
    if (oid === OID.pkcs8ShroudedKeyBag) {
      keyBag += 1;
      const iterations = algorithmIterations(children(value)[0]);
      if (iterations !== undefined) out.push({ where: `key bag ${keyBag}`, kind: 'key bag', iterations });
    } else if (oid === OID.safeContentsBag) {
      out.push(...safeContentsIterations(value, depth + 1));
    }
  }
  return out;
}

/**
 * Reads the MAC's and every visible bag's iteration counts of a PKCS#12 file (DER). Returns undefined when
 * the bytes are not a PKCS#12 PFX at all (openP12 then reports it as such).
 */
export function p12Iterations(der: Buffer | Uint8Array): P12Iterations[] | undefined {
  const pfx = parse(Buffer.from(der).toString('binary'));
  const [version, authSafe, macData] = children(pfx);
  if (!pfx || pfx.type !== T.SEQUENCE || integerOf(version) === undefined || !authSafe) return undefined;
  const out: P12Iterations[] = [];
  if (macData) {
    // MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
    const iterations = integerOf(children(macData)[2]);
    out.push({ where: 'MAC', kind: 'mac', iterations: iterations ?? 1n });
  }
  const [authType, authContent] = children(authSafe);
  if (oidOf(authType) !== OID.data) return out;
  const safes = parse(octetsOf(children(authContent)[0]) ?? '');
  let encrypted = 0;
  for (const info of children(safes)) {
    const [type, content] = children(info);
    const oid = oidOf(type);
    const inner = children(content)[0];
    if (oid === OID.data) {
      out.push(...safeContentsIterations(parse(octetsOf(inner) ?? '')));
    } else if (oid === OID.encryptedData) {
      // EncryptedData ::= SEQUENCE { version, EncryptedContentInfo { contentType, algorithm, [0] content } }
      encrypted += 1;
      const algorithm = children(children(inner)[1])[1];
      const iterations = algorithmIterations(algorithm);
      if (iterations !== undefined) {
        out.push({ where: `encrypted safe ${encrypted}`, kind: 'encrypted safe', iterations });
      }
    }
  }
  return out;
}

/**
 * Why a .p12 is refused for the counts visible without its PIN (one out of range, too many key bags, or a
 * total over budget), or undefined.
 */
export function p12IterationProblem(
  der: Buffer | Uint8Array,
  max: number = MAX_P12_ITERATIONS,
): string | undefined {
  const found = p12Iterations(der);
  return found ? (firstOutOfRange(found, max) ?? totalWorkProblem(found)) : undefined;
}

/**
 * Why a .p12 is refused for all its counts, those inside its encrypted safes included (decrypted with `pin`
 * only once the visible counts, the safes' own among them, passed), or undefined. What openP12 checks.
 */
export function p12OpeningProblem(der: Buffer | Uint8Array, pin: string): string | undefined {
  // The file's structure is read once; a file it cannot read has no visible counts (node-forge refuses it).
  const visible = p12Iterations(der) ?? [];
  const problem = firstOutOfRange(visible) ?? totalWorkProblem(visible);
  if (problem) return problem;
  const hidden = encryptedSafeIterations(der, pin);
  return firstOutOfRange(hidden) ?? totalWorkProblem([...visible, ...hidden]);
}

/** Too many key bags, or counts adding up beyond MAX_P12_TOTAL_ITERATIONS, or undefined. */
export function totalWorkProblem(found: P12Iterations[]): string | undefined {
  const keyBags = found.filter((f) => f.kind === 'key bag').length;
  if (keyBags > MAX_P12_KEY_BAGS) {
    return `PKCS#12 holds ${keyBags} encrypted key bags; at most ${MAX_P12_KEY_BAGS} are allowed (Hacienda's files hold 1)`;
  }
  const total = found.reduce((sum, f) => sum + f.iterations, 0n);
  if (total > BigInt(MAX_P12_TOTAL_ITERATIONS)) {
    return `PKCS#12 iteration counts add up to ${total}, beyond the ${MAX_P12_TOTAL_ITERATIONS} allowed (Hacienda's files use about 6000)`;
  }
  return undefined;
}

export function firstOutOfRange(
  found: P12Iterations[],
  max: number = MAX_P12_ITERATIONS,
): string | undefined {
  const bad = found.find((f) => f.iterations < 1n || f.iterations > BigInt(max));
  if (!bad) return undefined;
  return bad.iterations < 1n
    ? `PKCS#12 ${bad.where} iteration count ${bad.iterations} is not a positive number`
    : `PKCS#12 ${bad.where} iteration count ${bad.iterations} exceeds the ${max} allowed (Hacienda's files use 2048)`;
}

/**
 * The counts inside each encrypted safe (a shrouded key bag hidden there would be derived by node-forge with
 * no bound), found by decrypting the safe with `pin` under its own, already capped, count. A safe that does
 * not decrypt is skipped: the wrong PIN is node-forge's to report.
 */
export function encryptedSafeIterations(der: Buffer | Uint8Array, pin: string): P12Iterations[] {
  const pfx = parse(Buffer.from(der).toString('binary'));
  const authContent = children(children(pfx)[1])[1];
  const safes = parse(octetsOf(children(authContent)[0]) ?? '');
  const out: P12Iterations[] = [];
  let encrypted = 0;
  for (const info of children(safes)) {
    const [type, content] = children(info);
    if (oidOf(type) !== OID.encryptedData) continue;
    encrypted += 1;
    const [, algorithm, payload] = children(children(children(content)[0])[1]);
    const [algOid, params] = children(algorithm);
    const oid = oidOf(algOid);
    if (!oid || !params || !payload || payload.tagClass !== CONTEXT) continue;
    try {
      const cipher = pbe.getCipher(oid, params, pin);
      cipher.update(forge.util.createBuffer(octetsOf(payload) ?? ''));
      if (!cipher.finish()) continue;
      for (const found of safeContentsIterations(parse(cipher.output.getBytes()))) {
        out.push({ ...found, where: `${found.where} of encrypted safe ${encrypted}` });
      }
    } catch {
      // Unsupported algorithm or garbage: node-forge decides.
    }
  }
  return out;
}
