// @cr/stack: the three services in one process, for the tests of their clients.
export * from './start-stack';
export * from './documents';
