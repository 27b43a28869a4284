// The error body of every endpoint: the spec's {error, message}, plus requestId and validation details.
import { type Static, Type } from '@sinclair/typebox';

export const ErrorCode = Type.Union(
  [
    Type.Literal('bad_request'),
    Type.Literal('unauthorized'),
    Type.Literal('invalid_credentials'),
    Type.Literal('forbidden'),
    Type.Literal('not_found'),
    Type.Literal('conflict'),
    Type.Literal('payload_too_large'),
    Type.Literal('unprocessable'),
    Type.Literal('too_many_requests'),
    Type.Literal('upstream_error'),
    Type.Literal('service_unavailable'),
    Type.Literal('internal_error'),
  ],
  { $id: 'https://schemas.cr-einvoice.dev/error-code.json' },
);
export type ErrorCode = Static<typeof ErrorCode>;

export const ErrorDetail = Type.Object(
  {
    path: Type.String({ description: 'Dotted path of the field, e.g. detalleServicio[0].codigo' }),
    reason: Type.String(),
    expected: Type.Optional(
      Type.String({ description: 'The value the service computed, for amount mismatches' }),
    ),
  },
  { additionalProperties: false },
);
export type ErrorDetail = Static<typeof ErrorDetail>;

export const ErrorBody = Type.Object(
  {
    error: Type.String({ description: 'Stable lower-snake error code' }),
    message: Type.String({ description: 'Human-readable explanation naming the field when there is one' }),
    requestId: Type.Optional(Type.String()),
    details: Type.Optional(Type.Array(ErrorDetail)),
  },
  { $id: 'https://schemas.cr-einvoice.dev/error.json', additionalProperties: false },
);
export type ErrorBody = Static<typeof ErrorBody>;
