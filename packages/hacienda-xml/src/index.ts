// @cr/hacienda-xml: the pure Hacienda v4.4 document engine (no network, no database).
export * from './money';
export * from './errors';
export * from './cr-time';
export * from './identifiers';
export * from './arithmetic';
export * from './issuer';
export * from './document-check';
export * from './xml-text';
export * from './comprobante-xml';
export * from './signing-key';
export * from './xades-sign';
export * from './build-document';
export * from './xades-verify';
export * from './comprobante-parse';
export * from './mensaje-hacienda';
