export { createApp } from './app';
export { createAuthServices, type AuthServices, type AuthServicesOptions } from './services';
export { KeyStore, thumbprintOf, toPem } from './keys';
export { PasswordHasher, OWASP_ARGON2, type Argon2Params } from './passwords';
export { LoginThrottle } from './throttle';
export { RevocationStore } from './revocations';
export { TokenService } from './tokens';
export { loadAuthConfig, type AuthConfig } from './config';
export { MIGRATIONS_DIR as AUTH_MIGRATIONS_DIR } from './package-root';
