// CABYS: catalogue import (BCCR xlsx or JSON), in-memory search, and the cached fallback to Hacienda.
export * from './catalogue';
export * from './load';
export * from './normalize';
export * from './public-client';
export * from './search';
export * from './search-index';
export { cellText, parseCabysXlsx, readTaxPercent } from './xlsx';
