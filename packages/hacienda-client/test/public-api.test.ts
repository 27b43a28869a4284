import {
  createHaciendaClients,
  createSubmissionLimiter,
  HACIENDA_DEFAULTS,
  HaciendaPublicApi,
  HaciendaUpstreamError,
  SlidingWindowLimiter,
  TokenBucket,
} from '../src';
import { createFakeTime, FakeHacienda } from './fake-hacienda';

const fake = new FakeHacienda();

beforeAll(() => fake.start());
afterAll(() => fake.stop());
beforeEach(() => {
  fake.publicScript = [];
  fake.publicRequests = [];
});

function api(
  time = createFakeTime(),
  extra: Partial<ConstructorParameters<typeof HaciendaPublicApi>[0]> = {},
) {
  return new HaciendaPublicApi({
    baseUrl: fake.url,
    clock: time.clock,
    sleep: time.sleep,
    timeoutMs: 300,
    ...extra,
  });
}

describe('HaciendaPublicApi', () => {
  it('when a taxpayer exists, then its typed record comes back', async () => {
    const r = await api().taxpayer('2100042005');
    expect(r.kind).toBe('found');
    if (r.kind !== 'found') return;
    expect(r.value).toMatchObject({
      nombre: 'ESTADO-MINISTERIO DE HACIENDA',
      tipoIdentificacion: '02',
      regimen: { codigo: '1', descripcion: 'Régimen Tradicional' },
      situacion: { moroso: 'NO', omiso: 'NO', estado: 'Inscrito' },
      actividades: [{ estado: 'A', tipo: 'P', codigo: '751101' }],
    });
  });

  it('when the id is unknown or invalid, then notFound or invalid', async () => {
    const client = api();
    expect(await client.taxpayer('999999999')).toEqual({ kind: 'notFound' });
    expect(await client.taxpayer('abc')).toEqual({ kind: 'invalid', message: 'Identificación inválida' });
  });

  it('when an exoneration exists, then the fields for the XML come back typed', async () => {
    const r = await api().exoneration('al-00460853-20');
    expect(r).toMatchObject({
      kind: 'found',
      value: {
        numeroDocumento: 'AL-00460853-20',
        identificacion: '3101123456',
        porcentajeExoneracion: 13,
        tipoDocumento: { codigo: '04' },
        poseeCabys: true,
        cabys: ['2132100000100'],
      },
    });
    expect(await api().exoneration('AL-00000001-20')).toEqual({ kind: 'notFound' });
    expect(await api().exoneration('nope')).toEqual({ kind: 'invalid' });
  });

  it('when searching CABYS or looking up a code, then items come back; an unknown code is notFound', async () => {
    const client = api();
    const search = await client.cabys('tomate', 5);
    expect(search).toMatchObject({
      kind: 'found',
      value: { total: 1, cantidad: 1, cabys: [{ codigo: '2132100000100', impuesto: 13 }] },
    });
    expect(fake.publicRequests[0]).toBe('/fe/cabys?q=tomate&top=5');
    expect(await client.cabysByCodigo('2132100000100')).toMatchObject({
      kind: 'found',
      value: { descripcion: 'Jugo de tomate concentrado', categorias: expect.arrayContaining(['a']) },
    });
    expect(await client.cabysByCodigo('0000000000000')).toEqual({ kind: 'notFound' });
  });

  it('when the same lookup repeats within the TTL, then Hacienda is asked once; after the TTL again', async () => {
    const time = createFakeTime();
    const client = api(time, { cacheTtlMs: 60_000 });
    await client.taxpayer('2100042005');
    await client.taxpayer('2100042005');
    expect(fake.publicRequests).toHaveLength(1);
    time.advance(60_001);
    await client.taxpayer('2100042005');
    expect(fake.publicRequests).toHaveLength(2);
  });

  it('when a lookup has a beforeRequest hook, then a miss runs it once before the request and a hit never', async () => {
    const client = api(createFakeTime(), { cacheTtlMs: 60_000 });
    const seen: number[] = [];
    const beforeRequest = async () => {
      seen.push(fake.publicRequests.length);
    };
    expect((await client.exoneration('AL-00460853-20', { beforeRequest })).kind).toBe('found');
    expect(seen).toEqual([0]);
    expect(fake.publicRequests).toHaveLength(1);
    expect((await client.exoneration('AL-00460853-20', { beforeRequest })).kind).toBe('found');
    expect(seen).toEqual([0]);
    expect(fake.publicRequests).toHaveLength(1);
  });

  it('when the beforeRequest hook throws, then its error comes back and no request is made', async () => {
    const refused = new Error('tenant window used up');
    const beforeRequest = async () => {
      throw refused;
    };
    const client = api();
    await expect(client.exoneration('AL-00460853-20', { beforeRequest })).rejects.toBe(refused);
    expect(fake.publicRequests).toHaveLength(0);
    // Nothing was cached either: the next call asks Hacienda.
    expect((await client.exoneration('AL-00460853-20')).kind).toBe('found');
    expect(fake.publicRequests).toHaveLength(1);
  });

  it('when Hacienda fails with 5xx and a timeout, then it retries with backoff and succeeds', async () => {
    const time = createFakeTime();
    fake.publicScript.push((_req, res) => res.status(503).end());
    fake.publicScript.push((_req, res) => void setTimeout(() => res.status(200).json({}), 1_000));
    const r = await api(time, { retryDelaysMs: [100, 400] }).taxpayer('2100042005');
    expect(r.kind).toBe('found');
    expect(fake.publicRequests).toHaveLength(3);
    expect(time.sleeps).toEqual([100, 400]);
  });

  it('when Hacienda keeps failing, then a typed upstream error (502) after the retries', async () => {
    for (let i = 0; i < 3; i++) fake.publicScript.push((_req, res) => res.status(500).end());
    const err = await api(createFakeTime(), { retryDelaysMs: [10, 20] })
      .taxpayer('2100042005')
      .catch((e) => e);
    expect(err).toBeInstanceOf(HaciendaUpstreamError);
    expect(err).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(fake.publicRequests).toHaveLength(3);
  });

  it('when Hacienda answers 429, then calls pause without reaching it until the block ends', async () => {
    const time = createFakeTime();
    const client = api(time);
    fake.publicScript.push((_req, res) => res.status(429).end());
    await expect(client.taxpayer('2100042005')).rejects.toMatchObject({ retryAfterMs: 600_000 });
    const during = await client.cabys('jugo').catch((e) => e);
    expect(during).toBeInstanceOf(HaciendaUpstreamError);
    expect(fake.publicRequests).toHaveLength(1);
    time.advance(600_000);
    expect((await client.cabys('jugo')).kind).toBe('found');
  });

  it('when many lookups come at once, then the token bucket spreads them out', async () => {
    const time = createFakeTime();
    const bucket = new TokenBucket({ capacity: 2, refillPerSecond: 1, clock: time.clock, sleep: time.sleep });
    const client = api(time, { bucket });
    await Promise.all(['2100042005', '100000001', '100000002', '100000003'].map((id) => client.taxpayer(id)));
    expect(fake.publicRequests).toHaveLength(4);
    expect(time.sleeps).toEqual([1_000, 1_000]);
  });
});

describe('limiters', () => {
  it('when an issuer reaches 100 submissions in a minute, then the next is refused with the delay, others are not', () => {
    const time = createFakeTime();
    const limiter = createSubmissionLimiter({ clock: time.clock });
    for (let i = 0; i < 100; i++) {
      expect(limiter.tryAcquire('issuer-1')).toEqual({ ok: true });
      time.advance(100);
    }
    expect(limiter.tryAcquire('issuer-1')).toEqual({ ok: false, retryAfterMs: 50_000 });
    expect(limiter.tryAcquire('issuer-2')).toEqual({ ok: true });
    time.advance(50_000);
    expect(limiter.tryAcquire('issuer-1')).toEqual({ ok: true });
  });

  it('when events leave the window one by one, then slots free up in their order, each exactly windowMs later', () => {
    const time = createFakeTime();
    const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 1_000, clock: time.clock });
    for (const gap of [0, 100, 200]) {
      time.advance(gap);
      expect(limiter.tryAcquire('k')).toEqual({ ok: true });
    }
    // Events at 0, 100 and 300 ms.
    expect(limiter.tryAcquire('k')).toEqual({ ok: false, retryAfterMs: 700 });
    time.advance(699);
    expect(limiter.tryAcquire('k')).toEqual({ ok: false, retryAfterMs: 1 });
    time.advance(1); // 1,000: the event at 0 has left
    expect(limiter.tryAcquire('k')).toEqual({ ok: true });
    expect(limiter.tryAcquire('k')).toEqual({ ok: false, retryAfterMs: 100 });
    expect(limiter.count('k')).toBe(3);
    time.advance(1_000); // 2,000: every event has left
    expect(limiter.count('k')).toBe(0);
  });

  it('when the limit is lifted and events keep coming, then the count is of the window, never of the history', () => {
    const time = createFakeTime();
    const limiter = new SlidingWindowLimiter({ limit: 1_000_000, windowMs: 1_000, clock: time.clock });
    for (let i = 0; i < 10_000; i++) {
      expect(limiter.tryAcquire('issuer')).toEqual({ ok: true });
      time.advance(1);
      // Past the first second, exactly the last 1,000 ms of events: the ones at or before now − 1,000 left.
      if (i >= 1_000 && i % 997 === 0) expect(limiter.count('issuer')).toBe(999);
    }
    const capped = new SlidingWindowLimiter({ limit: 500, windowMs: 1_000, clock: time.clock });
    let granted = 0;
    for (let i = 0; i < 5_000; i++) {
      if (capped.tryAcquire('issuer').ok) granted += 1;
      time.advance(1);
    }
    // 500 in each of the five seconds' windows, no more.
    expect(granted).toBe(2_500);
  });

  it('when the clock steps back, then each event counts from its own time and leaves the window in time order', () => {
    const time = createFakeTime();
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 1_000, clock: time.clock });
    time.advance(5_000);
    expect(limiter.tryAcquire('k')).toEqual({ ok: true }); // at 5,000
    time.advance(-3_000);
    expect(limiter.tryAcquire('k')).toEqual({ ok: true }); // at 2,000
    expect(limiter.tryAcquire('k')).toEqual({ ok: false, retryAfterMs: 1_000 }); // until 2,000 leaves
    time.advance(1_000); // 3,000: the event at 2,000 has left, the one at 5,000 has not
    expect(limiter.count('k')).toBe(1);
    expect(limiter.tryAcquire('k')).toEqual({ ok: true }); // at 3,000, before 5,000 in the window
    expect(limiter.tryAcquire('k')).toEqual({ ok: false, retryAfterMs: 1_000 }); // the oldest is 3,000
    time.advance(1_000); // 4,000: 3,000 has left
    expect(limiter.count('k')).toBe(1);
    time.advance(2_000); // 6,000: 5,000 has left
    expect(limiter.count('k')).toBe(0);
  });

  it('when the settings name a submission limit, then the clients enforce that one, and 100 without it', () => {
    const time = createFakeTime();
    const lifted = createHaciendaClients(
      { ...HACIENDA_DEFAULTS, HACIENDA_SUBMISSIONS_PER_MINUTE: 3 },
      { clock: time.clock },
    );
    for (let i = 0; i < 3; i++) expect(lifted.submissions.tryAcquire('issuer-1')).toEqual({ ok: true });
    expect(lifted.submissions.tryAcquire('issuer-1')).toMatchObject({ ok: false });

    const standard = createHaciendaClients({ ...HACIENDA_DEFAULTS }, { clock: time.clock });
    for (let i = 0; i < 100; i++) expect(standard.submissions.tryAcquire('issuer-1')).toEqual({ ok: true });
    expect(standard.submissions.tryAcquire('issuer-1')).toMatchObject({ ok: false });
  });

  it('when a token bucket is drained, then each take waits for the refill in order', async () => {
    const time = createFakeTime();
    const bucket = new TokenBucket({ capacity: 1, refillPerSecond: 4, clock: time.clock, sleep: time.sleep });
    const order: number[] = [];
    await Promise.all([0, 1, 2].map((i) => bucket.take().then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2]);
    expect(time.sleeps).toEqual([250, 250]);
  });
});
