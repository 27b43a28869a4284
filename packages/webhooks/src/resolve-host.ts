// Name resolution for tenant-supplied hosts through c-ares (dns.promises.Resolver), never dns.lookup.
// dns.lookup runs getaddrinfo on libuv's thread pool (4 threads by default) with no timeout of its own: a
// tenant whose name server never answers would hold those threads for many seconds per lookup and stall the
// file, crypto, zlib and DNS work of every tenant in the process. c-ares sends its queries from the event
// loop, so a silent server costs a socket, not a thread, and the deadline below bounds the wait.
import { promises as dnsPromises, NODATA, NOTFOUND } from 'node:dns';

export interface ResolverOptions {
  /** Name servers ("ip" or "ip:port"); the system's (resolv.conf) when absent. Tests point it at a fake. */
  servers?: readonly string[];
  /** Timeout of a query's first try, in ms. */
  timeoutMs?: number;
  /** Tries per name server. */
  tries?: number;
}

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

// 2 s per try: a recursive resolver answers a cached name in milliseconds and a cold one well under a second,
// and 2 s is c-ares' own first-try default. 2 tries: one retry covers a lost UDP datagram; more only prolong
// the wait on a server that never answers. c-ares lengthens later tries on its own (measured ~7 s for 2 × 2 s
// against a silent server), so the lookup as a whole is cut at timeout × tries (4 s), well inside the
// delivery's own timeout.
export const DEFAULT_DNS_TIMEOUT_MS = 2_000;
export const DEFAULT_DNS_TRIES = 2;

/** A name with no address of one family is not an error as long as the other family has some. */
const EMPTY_ANSWER = new Set<string>([NODATA, NOTFOUND]);

function dnsError(code: string, hostname: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${hostname}: ${message} (${code})`), { code, hostname });
}

/** One resolver per lookup, so cancelling it at the deadline drops only this lookup's queries. */
function createResolver(options: ResolverOptions): dnsPromises.Resolver {
  const resolver = new dnsPromises.Resolver({
    timeout: options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS,
    tries: options.tries ?? DEFAULT_DNS_TRIES,
  });
  if (options.servers) resolver.setServers([...options.servers]);
  return resolver;
}

function queryFamily(resolver: dnsPromises.Resolver, hostname: string, family: 4 | 6) {
  const query = family === 4 ? resolver.resolve4(hostname) : resolver.resolve6(hostname);
  return query.then((addresses) => addresses.map((address): ResolvedAddress => ({ address, family })));
}

/**
 * The A and/or AAAA addresses of `hostname`, queried in parallel, in the order of `families`. Rejects with
 * ENOTFOUND when no family has an address, with ETIMEOUT when the deadline passed first, or with the
 * resolver's error (ESERVFAIL, ECONNREFUSED…) when that is why no address came back.
 */
export async function resolveHostAddresses(
  hostname: string,
  families: readonly (4 | 6)[],
  options: ResolverOptions = {},
): Promise<ResolvedAddress[]> {
  const resolver = createResolver(options);
  const deadlineMs = (options.timeoutMs ?? DEFAULT_DNS_TIMEOUT_MS) * (options.tries ?? DEFAULT_DNS_TRIES);
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    resolver.cancel();
  }, deadlineMs);
  let answers: PromiseSettledResult<ResolvedAddress[]>[];
  try {
    answers = await Promise.allSettled(families.map((family) => queryFamily(resolver, hostname, family)));
  } finally {
    clearTimeout(deadline);
  }
  const addresses = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []));
  if (addresses.length > 0) return addresses;
  if (timedOut) throw dnsError('ETIMEOUT', hostname, `no DNS answer within ${deadlineMs} ms`);
  const failure = answers.find(
    (a): a is PromiseRejectedResult =>
      a.status === 'rejected' && !EMPTY_ANSWER.has((a.reason as NodeJS.ErrnoException).code ?? ''),
  );
  if (failure) throw failure.reason;
  throw dnsError(NOTFOUND, hostname, 'no A or AAAA address');
}
