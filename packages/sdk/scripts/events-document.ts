// The document the webhook bodies' types are generated from: they are not operations of either service's
// OpenAPI document (the service POSTs them to the tenant's URL), so they get a document of their own, built
// from the contracts' schemas. `WebhookEvent` is any of them.
import { RecepcionDeadlineEvent, WebhookEventPayload } from '@cr/contracts';
import openapiTS, { astToString } from 'openapi-typescript';

/** A contracts schema as a component (its `$id` would make openapi-typescript take it for a document). */
function component(schema: object): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

/**
 * The bodies POSTed to the tenant's webhook URL: a document's final state, and the daily `recepcion.deadline`
 * of a received document still unanswered (the only one with a `type`).
 */
export function eventsDocument(): Record<string, unknown> {
  const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
  return {
    openapi: '3.1.0',
    info: { title: 'events', version: '1.0.0' },
    paths: {},
    components: {
      schemas: {
        WebhookEventPayload: component(WebhookEventPayload),
        RecepcionDeadlineEvent: component(RecepcionDeadlineEvent),
        WebhookEvent: { oneOf: [ref('WebhookEventPayload'), ref('RecepcionDeadlineEvent')] },
      },
    },
  };
}

/** openapi-typescript's rendering of eventsDocument(): the body of src/generated/events.ts. */
export async function eventTypes(): Promise<string> {
  // A JSON string: an object would be taken as already parsed and mutated while resolving references.
  return astToString(await openapiTS(JSON.stringify(eventsDocument())));
}
