// OpenAPI 3.1 documents of the services, built from the contracts, and what serving and checking them needs.
export * from './build-document';
export * from './auth-server.openapi';
export * from './tenant-api.openapi';
export * from './docs-page';
export * from './route-table';
export * as openApiExamples from './examples';
