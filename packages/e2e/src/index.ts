// Helpers for end-to-end tests through the gateway. The full-flow test (login → issuer → document →
// webhook) starts the apps with @cr/testkit's startApp and points startGateway at their ports.
export * from './gateway';
