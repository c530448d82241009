import { z } from 'zod';

/** `schema` as JSON Schema (what it accepts), for OpenAPI only. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return json;
}

/**
 * A JSON body the route hands to its service unparsed — the service parses it with `schema` and answers
 * Xray's own messages — shown in OpenAPI as `schema` (issue 16: the REST twins documented).
 */
export function bodyDocumentedAs(schema: z.ZodType) {
  return z.record(z.string(), z.unknown()).meta(jsonSchemaOf(schema));
}

/**
 * Any value, passed on untouched (an answer as the service made it: Xray's JSON kept as stored; a body
 * a content-type parser made a stream of), shown in OpenAPI as `schema`.
 */
export function documentedAs(schema: z.ZodType, description?: string) {
  return z.unknown().meta({ ...jsonSchemaOf(schema), ...(description ? { description } : {}) });
}
