// Response shapes of the operational and admin endpoints that had none in the contracts yet: health,
// key rotation and token revocation. They are what the OpenAPI document describes for those routes.
import { type Static, Type } from '@sinclair/typebox';

export const LivenessResponse = Type.Object(
  { status: Type.Literal('ok') },
  { $id: 'https://schemas.cr-einvoice.dev/health-live.json', additionalProperties: false },
);
export type LivenessResponse = Static<typeof LivenessResponse>;

export const ReadinessResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
    checks: Type.Record(Type.String(), Type.String(), {
      description: "one entry per check: 'ok' or 'failing' (the reason only at /health/details)",
    }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/health-ready.json', additionalProperties: false },
);
export type ReadinessResponse = Static<typeof ReadinessResponse>;

export const KeyRotationResponse = Type.Object(
  {
    activated: Type.String({ description: 'kid of the key that became current' }),
    activatesAt: Type.String({
      format: 'date-time',
      description: 'when the newly generated next key may become current (after the JWKS cache age)',
    }),
    next: Type.String({ description: 'kid of the newly generated next key, already published in the JWKS' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-key-rotation.json', additionalProperties: false },
);
export type KeyRotationResponse = Static<typeof KeyRotationResponse>;

export const TokenRevokedResponse = Type.Object(
  {
    jti: Type.String(),
    exp: Type.Integer({ description: 'the entry is kept until then (Unix seconds)' }),
  },
  { $id: 'https://schemas.cr-einvoice.dev/auth-token-revoked.json', additionalProperties: false },
);
export type TokenRevokedResponse = Static<typeof TokenRevokedResponse>;
