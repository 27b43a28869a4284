// Where webhooks may go. A tenant-supplied URL is an SSRF vector: https only, and no private, loopback,
// link-local or otherwise reserved address unless the operator allows it. The check runs when the URL is
// configured AND inside the socket's DNS lookup at delivery time, so a name that later resolves to an
// internal address (DNS rebinding) is refused on the connection actually made.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

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

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (LOOPBACK_NAMES.has(host.toLowerCase()) || host.toLowerCase().endsWith('.localhost')) return true;
  return ipaddr.isValid(host) && ipaddr.parse(host).range() === 'loopback';
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
  return url;
}

/** A DNS lookup for http(s) agents that refuses non-public addresses unless the policy allows them. */
export function guardedLookup(policy: TargetPolicy): LookupFunction {
  return ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err);
      const allowed = policy.allowPrivateTargets
        ? addresses
        : addresses.filter((a) => isPublicAddress(a.address));
      if (allowed.length === 0) {
        return callback(new TargetRefusedError(`${hostname} resolves only to non-public addresses`));
      }
      if ((options as { all?: boolean }).all) return callback(null, allowed);
      const first = allowed[0]!;
      return callback(null, first.address, first.family);
    });
  }) as LookupFunction;
}

/** Resolves the host now (at configuration time) so an obviously internal target is refused early. */
export async function checkTargetResolves(url: URL, policy: TargetPolicy): Promise<void> {
  const lookup = guardedLookup(policy);
  await new Promise<void>((resolve, reject) => {
    lookup(url.hostname.replace(/^\[|\]$/g, ''), { all: true }, (err) => (err ? reject(err) : resolve()));
  });
}
