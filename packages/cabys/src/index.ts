// CABYS: catalogue import (BCCR xlsx or JSON), in-memory search, and the search that falls back to a
// function the app supplies (Hacienda's public API) when no catalogue is loaded.
export * from './catalogue';
export * from './load';
export * from './normalize';
export * from './packed';
export * from './search';
export * from './search-index';
export { cellText, parseCabysXlsx, readTaxPercent } from './xlsx';
