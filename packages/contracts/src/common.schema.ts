// Small shapes shared by several endpoints.
import { type Static, Type } from '@sinclair/typebox';

export const SuccessMessage = Type.Object(
  { status: Type.Literal('success'), message: Type.String() },
  { $id: 'https://schemas.cr-einvoice.dev/success-message.json', additionalProperties: false },
);
export type SuccessMessage = Static<typeof SuccessMessage>;

/**
 * The body of a route that takes no fields (a consult of the tenant's own settings): `{}`, or no body at all.
 * A field sent there is refused rather than ignored, so a client never believes it filtered or chose something.
 */
export const NoFieldsRequest = Type.Object(
  {},
  { $id: 'https://schemas.cr-einvoice.dev/no-fields-request.json', additionalProperties: false },
);
export type NoFieldsRequest = Static<typeof NoFieldsRequest>;
