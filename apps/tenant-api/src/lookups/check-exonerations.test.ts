import type { DocumentRequest } from '@cr/contracts';
import { type Exoneration, HaciendaUpstreamError, type PublicResult } from '@cr/hacienda-client';
import { type ExonerationLookup, checkExonerations } from './check-exonerations';
import { isInForce, toExoneracionData } from './exoneration';

// Hacienda's registry as /fe/ex would answer it, in memory (this is Hacienda's side, not our code).
function registry(entries: Exoneration[], calls: string[] = []): ExonerationLookup {
  return {
    async exoneration(numero: string): Promise<PublicResult<Exoneration>> {
      calls.push(numero);
      const e = entries.find((x) => x.numeroDocumento === numero);
      return e ? { kind: 'found', value: e } : { kind: 'notFound' };
    },
  };
}

const AUTH: Exoneration = {
  numeroDocumento: 'AL-00020402-24',
  identificacion: '3101999888',
  fechaEmision: '2024-01-15T00:00:00',
  fechaVencimiento: '2026-06-30T00:00:00',
  porcentajeExoneracion: 13,
  tipoDocumento: { codigo: '04' },
  poseeCabys: true,
  cabys: ['2132100000100'],
  raw: {},
};

function doc(exoneraciones: Array<Record<string, unknown> | undefined>, extra: Record<string, unknown> = {}) {
  return {
    fechaEmision: '2026-05-01T10:00:00-06:00',
    receptor: { nombre: 'Receptor SA', identificacion: { tipo: '02', numero: '3101999888' } },
    detalleServicio: exoneraciones.map((ex, i) => ({
      numeroLinea: i + 1,
      codigo: '2132100000100',
      impuesto: [
        {
          codigo: '01',
          codigoTarifa: '08',
          tarifa: '13',
          ...(ex
            ? {
                exoneracion: {
                  tipoDocumento: '04',
                  numeroDocumento: 'AL-00020402-24',
                  nombreInstitucion: '01',
                  fechaEmision: '2024-01-15T00:00:00-06:00',
                  porcentajeExoneracion: 13,
                  ...ex,
                },
              }
            : {}),
        },
      ],
    })),
    ...extra,
  } as unknown as DocumentRequest;
}

const now = new Date('2026-05-01T16:00:00Z');

describe('checkExonerations', () => {
  it('when every exonerated line matches its authorization, then no issues and one lookup per number', async () => {
    const calls: string[] = [];
    expect(
      await checkExonerations({ document: doc([{}, {}, undefined]), now }, registry([AUTH], calls)),
    ).toEqual([]);
    expect(calls).toEqual(['AL-00020402-24']);
  });

  it('when the type is not 04 or 11, then Hacienda is not asked', async () => {
    const calls: string[] = [];
    const d = doc([{ tipoDocumento: '02', numeroDocumento: 'anything goes' }]);
    expect(await checkExonerations({ document: d, now }, registry([], calls))).toEqual([]);
    expect(calls).toEqual([]);
  });

  it('when the number is malformed, then numeroDocumento is named and Hacienda is not asked', async () => {
    const issues = await checkExonerations(
      { document: doc([{ numeroDocumento: '12345' }]), now },
      registry([]),
    );
    expect(issues).toEqual([
      {
        path: 'detalleServicio[0].impuesto[0].exoneracion.numeroDocumento',
        reason: expect.stringContaining('AL-00020402-24'),
      },
    ]);
  });

  it('when the percentage exceeds, the receptor differs and the type differs, then each is named', async () => {
    const d = doc([{ porcentajeExoneracion: 13.01, tipoDocumento: '11' }], {
      receptor: { nombre: 'Otro', identificacion: { tipo: '02', numero: '3101000001' } },
    });
    const issues = await checkExonerations({ document: d, now }, registry([AUTH]));
    const base = 'detalleServicio[0].impuesto[0].exoneracion';
    expect(issues).toEqual([
      { path: `${base}.numeroDocumento`, reason: expect.stringContaining('not to the receptor 3101000001') },
      { path: `${base}.porcentajeExoneracion`, reason: '13.01 exceeds the 13 authorized by AL-00020402-24' },
      { path: `${base}.tipoDocumento`, reason: expect.stringContaining('must be 04') },
    ]);
  });

  it('when the document has no receptor, then the receptor is required', async () => {
    const issues = await checkExonerations({ document: doc([{}], { receptor: '' }), now }, registry([AUTH]));
    expect(issues).toEqual([{ path: 'receptor', reason: expect.stringContaining('granted to 3101999888') }]);
  });

  it('when the receptor is given apart, then it is the one compared', async () => {
    const issues = await checkExonerations(
      { document: doc([{}], { receptor: '' }), receptorId: '03101999888', now },
      registry([AUTH]),
    );
    expect(issues).toEqual([]);
  });

  it('when the document date is on or after the expiry, then it is refused even if now is earlier', async () => {
    const d = doc([{}], { fechaEmision: '2026-06-30T00:00:00-06:00' });
    const issues = await checkExonerations(
      { document: d, now: new Date('2026-01-01T00:00:00Z') },
      registry([AUTH]),
    );
    expect(issues).toEqual([
      {
        path: 'detalleServicio[0].impuesto[0].exoneracion.numeroDocumento',
        reason: expect.stringContaining('expired on 2026-06-30T00:00:00'),
      },
    ]);
  });

  describe('the day the authorization was issued', () => {
    // The auditor's case: issued 2026-03-01, the client's FechaEmisionEX matching it, the document earlier.
    const issuedMarch = {
      ...AUTH,
      fechaEmision: '2026-03-01T00:00:00',
      fechaVencimiento: '2027-03-01T00:00:00',
    };
    const datedAt = (fechaEmision: string) => doc([{ fechaEmision: '2026-03-01' }], { fechaEmision });
    const notYetInForce = (documentDay: string) => ({
      path: 'detalleServicio[0].impuesto[0].exoneracion.numeroDocumento',
      reason: `AL-00020402-24 was issued on 2026-03-01, after the document date ${documentDay}, so it was not yet in force`,
    });

    it('when the document is weeks earlier, then numeroDocumento is refused though FechaEmisionEX matches', async () => {
      const issues = await checkExonerations(
        { document: datedAt('2026-01-10T10:00:00-06:00'), now: new Date('2026-06-01T18:00:00Z') },
        registry([issuedMarch]),
      );
      expect(issues).toEqual([notYetInForce('2026-01-10')]);
    });

    it('when it is 23:30 of the day before in Costa Rica (already the issue day in UTC), then it is refused', async () => {
      for (const fechaEmision of ['2026-02-28T23:30:00-06:00', '2026-03-01T05:30:00Z']) {
        const issues = await checkExonerations(
          { document: datedAt(fechaEmision), now },
          registry([issuedMarch]),
        );
        expect(issues).toEqual([notYetInForce('2026-02-28')]);
      }
    });

    it('when it is any hour of the issue day in Costa Rica, then it is in force', async () => {
      // Hacienda may write an hour: the authorization covers its whole day, as FechaEmisionEX names the day.
      const issuedAfternoon = { ...issuedMarch, fechaEmision: '2026-03-01T14:25:00' };
      for (const fechaEmision of ['2026-03-01T00:00:00-06:00', '2026-03-01T09:00:00-06:00']) {
        const issues = await checkExonerations(
          { document: datedAt(fechaEmision), now },
          registry([issuedAfternoon]),
        );
        expect(issues).toEqual([]);
      }
    });
  });

  it('when the authorization lists no CABYS, then any line code is accepted', async () => {
    const open = { ...AUTH, poseeCabys: false, cabys: [] };
    const d = doc([{}]);
    (d.detalleServicio[0] as { codigo: string }).codigo = '9999999999999';
    expect(await checkExonerations({ document: d, now }, registry([open]))).toEqual([]);
  });

  it('when Hacienda is unreachable, then the upstream error propagates (a 502, not an issue of the document)', async () => {
    const down: ExonerationLookup = {
      exoneration: async () => {
        throw new HaciendaUpstreamError('Hacienda public API unavailable on /fe/ex');
      },
    };
    await expect(checkExonerations({ document: doc([{}]), now }, down)).rejects.toMatchObject({
      status: 502,
    });
  });
});

describe('exoneration estado (Costa Rica time)', () => {
  const ex = { ...AUTH, fechaVencimiento: '2026-06-30T00:00:00' };
  it('when it is 23:59 of the 29th in Costa Rica (05:59Z of the 30th), then vigente', () => {
    expect(isInForce(ex, new Date('2026-06-30T05:59:59Z'))).toBe(true);
    expect(toExoneracionData(ex, new Date('2026-06-30T05:59:59Z')).estado).toBe('vigente');
  });
  it('when midnight of the 30th has come in Costa Rica (06:00Z), then vencida', () => {
    expect(toExoneracionData(ex, new Date('2026-06-30T06:00:00Z')).estado).toBe('vencida');
  });
  it('when Hacienda writes an offset or fractions, then fechaVencimiento is given without them', () => {
    const d = toExoneracionData({ ...ex, fechaVencimiento: '2026-06-30T00:00:00.000-06:00' }, now);
    expect(d.fechaVencimiento).toBe('2026-06-30T00:00:00');
  });
});
