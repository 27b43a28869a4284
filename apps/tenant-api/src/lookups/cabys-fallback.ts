// The CABYS search's fallback when no local catalogue is loaded: Hacienda's public /fe/cabys through
// @cr/hacienda-client (cached, retried, rate-limited with every other public-API call). A 13-digit query is a
// code lookup (`?codigo=`), anything else a text search (`?q=&top=`). Entries that are not proper CABYS items
// are dropped rather than shown.
import type { CabysFallback, CabysItem } from '@cr/cabys';
import type { CabysItem as HaciendaCabysItem } from '@cr/hacienda-client';
import type { PublicApiLookups } from './lookup-deps';

const CODE = /^[0-9]{13}$/;

function toItem(raw: HaciendaCabysItem): CabysItem | undefined {
  const codigo = raw.codigo.trim();
  const descripcion = raw.descripcion.trim();
  if (!CODE.test(codigo) || descripcion === '') return undefined;
  const impuesto = raw.impuesto;
  if (impuesto === undefined || impuesto < 0 || impuesto > 100) return undefined;
  return { codigo, descripcion, impuesto };
}

export function haciendaCabysFallback(api: Pick<PublicApiLookups, 'cabys' | 'cabysByCodigo'>): CabysFallback {
  return async (query, { limit, beforeRequest, lane }) => {
    const lookup = { ...(beforeRequest ? { beforeRequest } : {}), ...(lane !== undefined ? { lane } : {}) };
    const compact = query.replace(/[\s.-]/g, '');
    if (CODE.test(compact)) {
      const r = await api.cabysByCodigo(compact, lookup);
      const item = r.kind === 'found' ? toItem(r.value) : undefined;
      return item ? [item] : [];
    }
    const r = await api.cabys(query, limit, lookup);
    if (r.kind !== 'found') return [];
    const items: CabysItem[] = [];
    for (const raw of r.value.cabys) {
      const item = toItem(raw);
      if (item) items.push(item);
    }
    return items.slice(0, limit);
  };
}
