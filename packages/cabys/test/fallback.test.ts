// The search's source choice: the local index when a catalogue is loaded, else the fallback function the app
// supplies (in the tenant-api, Hacienda's public /fe/cabys; its HTTP behaviour is tested there against the
// sandbox). The fallback receives a cleaned query and a clamped limit, and its errors reach the caller.
import { AppError } from '@cr/service-kit';
import { type CabysFallback, type CabysItem, createCabysIndex, createCabysSearch } from '../src';

const CATALOGUE: CabysItem[] = [
  { codigo: '2132100000100', descripcion: 'Jugo de tomate concentrado', impuesto: 13 },
  { codigo: '2132100000200', descripcion: 'Jugo de tomate natural', impuesto: 13 },
  { codigo: '0161001010000', descripcion: 'Café cereza, orgánico', impuesto: 1 },
];

function recordingFallback(answer: CabysItem[] = CATALOGUE) {
  const calls: Array<{ query: string; limit: number }> = [];
  const fallback: CabysFallback = async (query, { limit }) => {
    calls.push({ query, limit });
    return answer;
  };
  return { calls, fallback };
}

describe('createCabysSearch', () => {
  it('when a local catalogue is loaded, then it answers and the fallback is not called', async () => {
    const f = recordingFallback();
    const s = createCabysSearch({ index: createCabysIndex(CATALOGUE), fallback: f.fallback });
    expect(s.source).toBe('local');
    expect(await s.search('cafe')).toEqual([CATALOGUE[2]]);
    expect(f.calls).toEqual([]);
  });

  it('when asked whether it has a code, then the local catalogue answers; without one it is false and the fallback is not called', () => {
    const f = recordingFallback();
    const local = createCabysSearch({ index: createCabysIndex(CATALOGUE), fallback: f.fallback });
    expect(local.has('2132100000200')).toBe(true);
    expect(local.has('2132100000300')).toBe(false);
    const remote = createCabysSearch({ fallback: f.fallback });
    expect(remote.has('2132100000200')).toBe(false);
    expect(createCabysSearch({}).has('2132100000200')).toBe(false);
    expect(f.calls).toEqual([]);
  });

  it('when there is no local catalogue, then the fallback gets the cleaned query and the clamped limit', async () => {
    const f = recordingFallback();
    const s = createCabysSearch({ fallback: f.fallback });
    expect(s.source).toBe('hacienda');
    expect(await s.search('  jugo   tomate ', { limit: 2 })).toEqual(CATALOGUE.slice(0, 2));
    await s.search('cafe', { limit: 5000 });
    await s.search('cafe');
    await s.search('x'.repeat(300), { limit: 0 });
    expect(f.calls).toEqual([
      { query: 'jugo tomate', limit: 2 },
      { query: 'cafe', limit: 200 },
      { query: 'cafe', limit: 50 },
      { query: 'x'.repeat(200), limit: 1 },
    ]);
  });

  it("when the caller gives a beforeRequest hook, then the fallback receives it (it runs only on the source's cache misses)", async () => {
    const seen: Array<(() => Promise<void>) | undefined> = [];
    const s = createCabysSearch({
      fallback: async (_query, options) => {
        seen.push(options.beforeRequest);
        return [];
      },
    });
    const beforeRequest = async () => {};
    await s.search('cafe', { beforeRequest });
    await s.search('cafe');
    expect(seen).toEqual([beforeRequest, undefined]);
  });

  it('when the fallback returns more than the limit, then the list is cut to it', async () => {
    const s = createCabysSearch({ fallback: recordingFallback().fallback });
    expect(await s.search('jugo', { limit: 1 })).toEqual([CATALOGUE[0]]);
  });

  it('when the query is blank or not a string, then the fallback is not called', async () => {
    const f = recordingFallback();
    const s = createCabysSearch({ fallback: f.fallback });
    expect(await s.search('   ')).toEqual([]);
    expect(await s.search(42 as unknown as string)).toEqual([]);
    expect(f.calls).toEqual([]);
  });

  it('when the fallback fails, then its error reaches the caller unchanged', async () => {
    const upstream = new AppError('upstream_error', 'Hacienda public API unavailable on /fe/cabys');
    const s = createCabysSearch({
      fallback: async () => {
        throw upstream;
      },
    });
    await expect(s.search('cafe')).rejects.toBe(upstream);
  });

  it('when there is neither, then service_unavailable says what to configure', async () => {
    const s = createCabysSearch({});
    expect(s.source).toBeUndefined();
    await expect(s.search('cafe')).rejects.toMatchObject({ code: 'service_unavailable', status: 503 });
  });
});
