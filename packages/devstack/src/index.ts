export * from './service-databases';
