// A verdict finding and the codes the sandbox reports. Codes from REFERENCE §9.4 where Hacienda's are known
// (−15, −37, −78, −99, −110/−111, −400, −408, −487, −505); the others are the sandbox's own, chosen outside
// the known range so a client can still switch on them. No official catalogue exists.
export interface Finding {
  code: number;
  text: string;
  /** Warnings are listed in DetalleMensaje but do not reject (as −37 in a real accepted answer). */
  warning?: boolean;
}

export const CODES = {
  clave: -15,
  ubicacion: -37,
  consecutivo: -78,
  schema: -99,
  servicios: -110,
  mercancias: -111,
  cabys: -400,
  actividad: -408,
  desglose: -487,
  tarifa: -505,
  // Sandbox-chosen codes:
  firma: -50,
  certificadoNoConfiable: -51,
  certificadoEmisor: -52,
  certificadoVigencia: -53,
  calculoLinea: -200,
  calculoResumen: -201,
  medioPago: -202,
  codigo: -300,
  condicional: -301,
  referencia: -320,
  emisor: -310,
  forzado: -999,
} as const;
