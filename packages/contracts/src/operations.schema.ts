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
    activated: Type.String({
      description:
        'kid of the key that signs from `activatesAt` on (the next key published before this call)',
    }),
    // The activated key's time, as keys.ts rotate() returns it: what an operator needs to know (when tokens
    // start carrying the new kid, and the time by which every verifier must hold that key). The new next
    // key has no time yet: it activates at a later rotation.
    activatesAt: Type.String({
      format: 'date-time',
      description:
        '`activated` signs from then on: now, or one JWKS cache age after it was published when that is later, so every verifier has had the chance to fetch it; the previous key signs until then',
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
