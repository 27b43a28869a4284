// The issuer (emisor) data the engine writes into the XML; the tenant-api loads it from its database.
export interface IssuerUbicacion {
  /** 1 digit. */
  provincia: string;
  /** 2 digits. */
  canton: string;
  /** 2 digits. */
  distrito: string;
  /** The barrio's NAME from the territorial table; written only when it has 5–50 characters. */
  barrio?: string;
  /** Free-text address, 5–250 characters. */
  otrasSenas: string;
}

export interface Issuer {
  /** Legal name (5–100). */
  nombre: string;
  tipoIdentificacion: '01' | '02' | '03' | '04';
  numeroIdentificacion: string;
  nombreComercial?: string;
  /** Registered branch; the document's `sucursal` overrides it. Default 1. */
  sucursal?: number;
  ubicacion: IssuerUbicacion;
  /** Digits; written with country code 506. */
  telefono?: string;
  /** 1 to 4 addresses. */
  correoElectronico: string | string[];
  /** ProveedorSistemas: the software provider's id; default the issuer's own id (in-house software). */
  proveedorSistemas?: string;
}
