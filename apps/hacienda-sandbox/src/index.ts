// @cr/hacienda-sandbox: a faithful local Hacienda. Exported for the app's own tests and tooling.
export * from './app';
export * from './compose';
export * from './config';
export * from './certificate-authority';
export * from './cabys-catalog';
export * from './faults';
export * from './processor';
export * from './verdict/checks';
export * from './verdict/findings';
export * from './verdict/run-verdict';
export * from './verdict/xsd-check';
export * from './verdict/engine-checks';
export * from './verdict/pipeline';
export * from './demo';
export { MIGRATIONS_DIR as SANDBOX_MIGRATIONS_DIR } from './package-root';
