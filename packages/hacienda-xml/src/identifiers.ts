// Value objects for Hacienda identifiers (REFERENCE §2, §7.1). Each constructor refuses malformed input
// with a HaciendaXmlError, so an instance is always well-formed.
import { randomInt } from 'node:crypto';
import { formatClaveDate, toCostaRicaParts } from './cr-time';
import { HaciendaXmlError } from './errors';

export type TipoIdentificacion = '01' | '02' | '03' | '04' | '05' | '06';

const ID_FORMATS: Record<TipoIdentificacion, { re: RegExp; text: string }> = {
  '01': { re: /^[1-9]\d{8}$/, text: '9 digits without leading zero' },
  '02': { re: /^\d{10}$/, text: '10 digits' },
  '03': { re: /^[1-9]\d{10,11}$/, text: '11 or 12 digits without leading zero' },
  '04': { re: /^\d{10}$/, text: '10 digits' },
  '05': { re: /^[A-Za-z0-9]{1,20}$/, text: 'up to 20 letters or digits' },
  '06': { re: /^[A-Za-z0-9]{1,20}$/, text: 'up to 20 letters or digits' },
};

/** Why `numero` is not a valid identification of type `tipo`, or undefined when it is. */
export function describeIdentificacionProblem(tipo: string, numero: string): string | undefined {
  const format = ID_FORMATS[tipo as TipoIdentificacion];
  if (!format) return 'tipo must be one of 01, 02, 03, 04, 05, 06';
  if (!format.re.test(numero)) return `numero must be ${format.text} for tipo ${tipo}`;
  return undefined;
}

export class Identificacion {
  readonly tipo: TipoIdentificacion;
  readonly numero: string;

  constructor(tipo: string, numero: string) {
    const problem = describeIdentificacionProblem(tipo, numero);
    if (problem) throw new HaciendaXmlError('invalid_identificacion', `identificacion: ${problem}`);
    this.tipo = tipo as TipoIdentificacion;
    this.numero = numero;
  }

  /** The 12-digit, zero-padded form used inside the clave (Nota 4.1). */
  toClaveSegment(): string {
    if (!/^\d{1,12}$/.test(this.numero)) {
      throw new HaciendaXmlError(
        'invalid_identificacion',
        'identificacion: only numeric ids up to 12 digits fit in a clave',
      );
    }
    return this.numero.padStart(12, '0');
  }
}

export type TipoComprobante = '01' | '02' | '03' | '04' | '05' | '06' | '07' | '08' | '09' | '10';

export interface ConsecutivoParts {
  sucursal: number;
  terminal: number;
  tipo: TipoComprobante;
  numero: number;
}

const TIPOS_COMPROBANTE = new Set(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10']);

/** NumeroConsecutivo: branch 3 + terminal 5 + type 2 + sequence 10 digits. */
export class Consecutivo {
  readonly value: string;
  readonly sucursal: number;
  readonly terminal: number;
  readonly tipo: TipoComprobante;
  readonly numero: number;

  constructor(parts: ConsecutivoParts) {
    const { sucursal, terminal, tipo, numero } = parts;
    if (!Number.isInteger(sucursal) || sucursal < 1 || sucursal > 999) {
      throw new HaciendaXmlError('invalid_consecutivo', 'consecutivo: sucursal must be an integer 1..999');
    }
    if (!Number.isInteger(terminal) || terminal < 1 || terminal > 99999) {
      throw new HaciendaXmlError('invalid_consecutivo', 'consecutivo: terminal must be an integer 1..99999');
    }
    if (!TIPOS_COMPROBANTE.has(tipo)) {
      throw new HaciendaXmlError('invalid_consecutivo', 'consecutivo: tipo must be 01..10');
    }
    if (!Number.isInteger(numero) || numero < 1 || numero > 9999999999) {
      throw new HaciendaXmlError(
        'invalid_consecutivo',
        'consecutivo: numero must be an integer 1..9999999999',
      );
    }
    this.sucursal = sucursal;
    this.terminal = terminal;
    this.tipo = tipo;
    this.numero = numero;
    this.value = `${String(sucursal).padStart(3, '0')}${String(terminal).padStart(5, '0')}${tipo}${String(numero).padStart(10, '0')}`;
  }

  static parse(value: string): Consecutivo {
    if (!/^\d{20}$/.test(value))
      throw new HaciendaXmlError('invalid_consecutivo', 'consecutivo: must be 20 digits');
    return new Consecutivo({
      sucursal: Number(value.slice(0, 3)),
      terminal: Number(value.slice(3, 8)),
      tipo: value.slice(8, 10) as TipoComprobante,
      numero: Number(value.slice(10)),
    });
  }

  toString(): string {
    return this.value;
  }
}

export type Situacion = 1 | 2 | 3;

export interface ClaveParts {
  pais: '506';
  /** ddmmyy in Costa Rica time. */
  fecha: string;
  day: number;
  month: number;
  /** Two-digit year. */
  year: number;
  identificacion: string;
  consecutivo: Consecutivo;
  situacion: Situacion;
  codigoSeguridad: string;
}

/**
 * Why the clave cannot carry `fechaEmision`, or undefined when it can: it holds the date as ddmmyy in Costa
 * Rica time and is read back as 20yy, so any other century would name another date than FechaEmision, which
 * Hacienda rejects (REFERENCE §2.2, "Date must match").
 */
export function describeClaveDateProblem(fechaEmision: Date): string | undefined {
  const { year } = toCostaRicaParts(fechaEmision);
  if (year >= 2000 && year <= 2099) return undefined;
  return 'must be from 2000-01-01 to 2099-12-31 in Costa Rica time (the clave holds a two-digit year)';
}

/** The 50-digit clave (REFERENCE §2.2). There is no check digit anywhere. */
export class Clave {
  readonly value: string;
  readonly parts: ClaveParts;

  private constructor(value: string, parts: ClaveParts) {
    this.value = value;
    this.parts = parts;
  }

  /** Splits a clave into its parts; refuses anything that is not a well-formed clave. */
  static parse(value: string): Clave {
    if (typeof value !== 'string' || !/^\d{50}$/.test(value)) {
      throw new HaciendaXmlError('invalid_clave', 'clave: must be exactly 50 digits');
    }
    if (!value.startsWith('506')) throw new HaciendaXmlError('invalid_clave', 'clave: must start with 506');
    const day = Number(value.slice(3, 5));
    const month = Number(value.slice(5, 7));
    const year = Number(value.slice(7, 9));
    const check = new Date(Date.UTC(2000 + year, month - 1, day));
    if (month < 1 || month > 12 || day < 1 || check.getUTCDate() !== day) {
      throw new HaciendaXmlError('invalid_clave', 'clave: positions 4-9 must be a date ddmmyy');
    }
    const situacion = Number(value.slice(41, 42));
    if (situacion !== 1 && situacion !== 2 && situacion !== 3) {
      throw new HaciendaXmlError('invalid_clave', 'clave: situación (position 42) must be 1, 2 or 3');
    }
    let consecutivo: Consecutivo;
    try {
      consecutivo = Consecutivo.parse(value.slice(21, 41));
    } catch (err) {
      throw new HaciendaXmlError('invalid_clave', `clave: ${(err as Error).message}`);
    }
    return new Clave(value, {
      pais: '506',
      fecha: value.slice(3, 9),
      day,
      month,
      year,
      identificacion: value.slice(9, 21),
      consecutivo,
      situacion,
      codigoSeguridad: value.slice(42),
    });
  }

  /** Builds a clave; the 8-digit security code comes from the CSPRNG unless given (tests). */
  static generate(options: {
    fechaEmision: Date;
    emisor: Identificacion;
    consecutivo: Consecutivo;
    situacion?: Situacion;
    codigoSeguridad?: string;
  }): Clave {
    const dateProblem = describeClaveDateProblem(options.fechaEmision);
    if (dateProblem) throw new HaciendaXmlError('invalid_clave', `clave: fechaEmision ${dateProblem}`);
    const situacion = options.situacion ?? 1;
    const code = options.codigoSeguridad ?? String(randomInt(0, 100_000_000)).padStart(8, '0');
    if (!/^\d{8}$/.test(code))
      throw new HaciendaXmlError('invalid_clave', 'clave: security code must be 8 digits');
    const value = `506${formatClaveDate(options.fechaEmision)}${options.emisor.toClaveSegment()}${options.consecutivo.value}${situacion}${code}`;
    return Clave.parse(value);
  }

  toString(): string {
    return this.value;
  }
}
