// @cr/pdf: the printable representation of a v4.4 comprobante (letter and 80 mm ticket). Pure.
export * from './catalogs';
export * from './format';
export * from './model';
export * from './read-comprobante';
export * from './render';
export { MAX_LOGO_PIXELS, MAX_LOGO_SIDE, logoProblem } from './logo';
