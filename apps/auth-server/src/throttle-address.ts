// The address the login throttle counts a client by. An IPv4 address is one client's; an IPv6 address is
// not: a single subscriber or server is routinely given a whole /64 (2^64 addresses), so counting /128s let
// one attacker start a fresh (base, address) pair, with its free failures, on every attempt. IPv6 is counted
// by its /64, an IPv4-mapped IPv6 address (::ffff:a.b.c.d, how a dual-stack socket reports IPv4) as the IPv4
// address it is. Pure: no I/O.
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight 16-bit groups of a valid IPv6 address, as numbers (zone id dropped, `::` and an IPv4 tail expanded). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0] ?? '';
  const tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text)?.[1];
  if (tail) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, -tail.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const front = head ? head.split(':') : [];
  const back = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...zeros, ...back].map((group) => Number.parseInt(group, 16));
}

/** `203.0.113.7` → itself; `2001:db8:1:2:aaaa::1` → `2001:db8:1:2::/64`; anything else unchanged. */
export function throttleAddress(ip: string): string {
  const mapped = MAPPED_IPV4.exec(ip)?.[1];
  if (mapped && isIPv4(mapped)) return mapped;
  if (!isIPv6(ip)) return ip;
  const prefix = ipv6Groups(ip)
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':');
  return `${prefix}::/64`;
}
