// Tests never reach the outside network: Hacienda is the sandbox app or a local fake.
process.env.NODE_ENV = process.env.NODE_ENV || 'test';
process.env.LOG_LEVEL = process.env.LOG_LEVEL || 'silent';
