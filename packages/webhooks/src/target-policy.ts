// Where webhooks may go. A tenant-supplied URL is an SSRF vector: https only, and no private, loopback,
// link-local or otherwise reserved address unless the operator allows it. The check runs when the URL is
// configured AND inside the socket's DNS lookup at delivery time, so a name that later resolves to an
// internal address (DNS rebinding) is refused on the connection actually made. Names are resolved through
// c-ares with a deadline (./resolve-host), never on libuv's thread pool; a URL's port must be 443 or from
// 1024, so the platform's address cannot be used to scan other services.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { type ResolvedAddress, type ResolverOptions, resolveHostAddresses } from './resolve-host';

export interface TargetPolicy {
  /** Allow private-network and loopback targets (development, tests, on-premise installs). */
  allowPrivateTargets: boolean;
  /** Allow plain http to a loopback host (development). */
  allowHttpLoopback: boolean;
}

export class TargetRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.localdomain']);

// Well-known ports (below 1024) are where SSH, SMTP, databases' admin ports and the like listen: a webhook
// may use https's own port or any port from 1024, so a tenant cannot probe those services from the
// platform's address and read the answer back from delivery errors. Plain http's port is allowed exactly
// where plain http is (loopback, in development).
const HTTPS_PORT = 443;
const HTTP_PORT = 80;
/** Ports from here are nobody's by convention; the SMTP settings (tenant-api) use the same line. */
export const FIRST_UNPRIVILEGED_PORT = 1024;

export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  // ::/96, the IPv4-compatible addresses RFC 4291 deprecated: ipaddr.js calls ::7f00:1 (127.0.0.1 inside)
  // unicast. No public service is reached through one, and a stack that still maps them would reach the
  // IPv4 address inside, so none is public.
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) {
    return false;
  }
  return parsed.range() === 'unicast';
}

/** localhost and its subdomains (RFC 6761), with or without the root's trailing dot. */
function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return LOOPBACK_NAMES.has(name) || name.endsWith('.localhost');
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isLoopbackName(host)) return true;
  return ipaddr.isValid(host) && ipaddr.parse(host).range() === 'loopback';
}

function checkTargetPort(url: URL, policy: TargetPolicy): void {
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? HTTPS_PORT : HTTP_PORT;
  if (port === HTTPS_PORT || port >= FIRST_UNPRIVILEGED_PORT) return;
  if (port === HTTP_PORT && policy.allowHttpLoopback && isLoopbackHost(url.hostname)) return;
  throw new TargetRefusedError(`port ${port} is not allowed; use 443 or a port from 1024`);
}

/** Checks the URL's shape; returns the parsed URL or throws TargetRefusedError with the reason. */
export function checkTargetUrl(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefusedError('must be an absolute URL');
  }
  if (url.username || url.password) throw new TargetRefusedError('must not carry credentials');
  if (url.protocol !== 'https:') {
    if (!(url.protocol === 'http:' && policy.allowHttpLoopback && isLoopbackHost(url.hostname))) {
      throw new TargetRefusedError('must use https');
    }
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) && !policy.allowPrivateTargets && !isPublicAddress(host)) {
    throw new TargetRefusedError('must not point to a private, loopback or reserved address');
  }
  if (isLoopbackHost(host) && !policy.allowPrivateTargets) {
    throw new TargetRefusedError('must not point to a private, loopback or reserved address');
  }
  checkTargetPort(url, policy);
  return url;
}

function familiesOf(options: LookupOptions): (4 | 6)[] {
  const family = options.family;
  if (family === 4 || family === 'IPv4') return [4];
  if (family === 6 || family === 'IPv6') return [6];
  // IPv4 first: the single-address form (SMTP, sockets without autoSelectFamily) takes the first address,
  // and a server without an IPv6 route reaches it; with `all`, the socket tries the others too.
  return [4, 6];
}

/**
 * The addresses `host` stands for, without DNS where none is needed: an IP literal is itself, and localhost
 * is loopback (RFC 6761; c-ares does not read /etc/hosts), which the policy then allows only where private
 * targets are allowed.
 */
function addressesOf(
  host: string,
  options: LookupOptions,
  resolver: ResolverOptions,
): Promise<ResolvedAddress[]> {
  const literal = isIP(host);
  if (literal === 4 || literal === 6) return Promise.resolve([{ address: host, family: literal }]);
  const families = familiesOf(options);
  if (isLoopbackName(host)) {
    const loopback: ResolvedAddress[] = [
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ];
    return Promise.resolve(loopback.filter((a) => families.includes(a.family)));
  }
  return resolveHostAddresses(host, families, resolver);
}

/**
 * The addresses `hostname` stands for (IPv4 first), every one allowed by the policy: a name that also
 * resolves inside is refused (TargetRefusedError), not trimmed to its public part; DNS errors as they come.
 */
export async function allowedAddresses(
  hostname: string,
  policy: TargetPolicy,
  resolver: ResolverOptions = {},
  options: LookupOptions = {},
): Promise<ResolvedAddress[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = await addressesOf(host, options, resolver);
  if (policy.allowPrivateTargets) return addresses;
  const inside = addresses.filter((a) => !isPublicAddress(a.address)).length;
  // The first wording is the one delivery records (and their readers) already know.
  if (inside === addresses.length) {
    throw new TargetRefusedError(`${host} resolves only to non-public addresses`);
  }
  if (inside > 0) throw new TargetRefusedError(`${host} also resolves to non-public addresses`);
  return addresses;
}

/**
 * A DNS lookup for http(s) agents and sockets (their `lookup` option) that refuses non-public addresses
 * unless the policy allows them. Both callback forms of dns.lookup: `all: true` (what sockets with
 * autoSelectFamily ask for) gets the array, otherwise the first address and its family. `resolver` sets the
 * name servers and bounds (tests inject a local fake server).
 */
export function guardedLookup(policy: TargetPolicy, resolver: ResolverOptions = {}): LookupFunction {
  return ((hostname: string, options: LookupOptions, callback: (...args: unknown[]) => void) => {
    allowedAddresses(hostname, policy, resolver, options ?? {}).then(
      // Called outside the promise chain, as dns.lookup does: an exception in the socket's callback must not
      // turn into an unhandled rejection here.
      (addresses) =>
        process.nextTick(() => {
          if (options?.all) return callback(null, addresses satisfies LookupAddress[]);
          const first = addresses[0]!;
          return callback(null, first.address, first.family);
        }),
      (err: unknown) => process.nextTick(() => callback(err)),
    );
  }) as LookupFunction;
}

/** Resolves the host now (at configuration time) so an obviously internal target is refused early. */
export async function checkTargetResolves(
  url: URL,
  policy: TargetPolicy,
  resolver: ResolverOptions = {},
): Promise<void> {
  await allowedAddresses(url.hostname, policy, resolver);
}
