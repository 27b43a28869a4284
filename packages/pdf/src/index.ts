// @cr/pdf: the printable representation of a v4.4 comprobante (letter and 80 mm ticket). Pure.
export * from './catalogs';
export * from './format';
export * from './model';
export * from './read-comprobante';
export * from './render';
export { isPng, logoProblem } from './logo';
