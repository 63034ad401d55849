import { z } from 'zod';

/** A JSON Schema object as published. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema that the OpenAPI document and `tools/list` publish for a zod schema (input or output side). Two
 * things zod adds are left out: `$schema` (each is embedded in a document that says its dialect), and the bounds
 * of a safe integer (`minimum: -9007199254740991, maximum: 9007199254740991` on every `.int()`), which tell a client
 * nothing a JSON number does not (1.2 of the 43.5 KB of `tools/list`). Bounds an operation sets itself are kept.
 */
export function publishedJsonSchema(type: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const schema = z.toJSONSchema(type, {
    io,
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.type !== 'integer') return;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as JsonSchema;
  delete schema.$schema;
  return schema;
}
