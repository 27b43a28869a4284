// TRUST_PROXY, parsed once for every service. Express's `trust proxy = true` believes the LEFT-most
// X-Forwarded-For entry, which the client writes: an attacker would pick the address every per-IP limit
// counts. A hop count believes only what the proxies in front of us appended, so "true" means ONE hop (the
// gateway) and nothing else. A list of addresses/subnets is passed to express as is.
import { ConfigError } from './config';

/** What express's `trust proxy` setting receives: false, a hop count, or addresses/subnets. */
export type TrustProxySetting = false | number | string;

const PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);
const ADDRESS = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*)(?:\/\d{1,3})?$/;

export function parseTrustProxy(value: string | boolean | number | undefined): TrustProxySetting {
  if (value === undefined || value === '' || value === false || value === 'false' || value === '0')
    return false;
  if (value === true || value === 'true') return 1;
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > 99)
      throw new ConfigError('TRUST_PROXY: hop count must be 0-99');
    return value === 0 ? false : value;
  }
  const text = value.trim();
  if (/^\d{1,2}$/.test(text)) return Number(text) === 0 ? false : Number(text);
  const entries = text.split(',').map((e) => e.trim());
  if (entries.some((e) => !PRESETS.has(e) && !ADDRESS.test(e)))
    throw new ConfigError(
      'TRUST_PROXY: must be false, true (one hop), a hop count (0-99) or addresses/subnets (comma-separated)',
    );
  return entries.join(', ');
}
