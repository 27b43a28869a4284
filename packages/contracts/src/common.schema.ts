// Small shapes shared by several endpoints.
import { type Static, Type } from '@sinclair/typebox';

export const SuccessMessage = Type.Object(
  { status: Type.Literal('success'), message: Type.String() },
  { $id: 'https://schemas.cr-einvoice.dev/success-message.json', additionalProperties: false },
);
export type SuccessMessage = Static<typeof SuccessMessage>;
