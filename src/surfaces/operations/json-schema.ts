import { z } from 'zod';

/** A JSON Schema object as published. */
export type JsonSchema = Record<string, unknown>;

// The pattern zod writes beside `format: "uuid"` for every z.uuid(): 168 characters, 22 times in tools/list.
const ZOD_UUID_PATTERN = (z.toJSONSchema(z.uuid()) as JsonSchema).pattern;

/**
 * The JSON Schema that the OpenAPI document and `tools/list` publish for a zod schema (input or output side). Three
 * things zod adds are left out:
 * - `$schema`: each is embedded in a document that says its dialect;
 * - the bounds of a safe integer (`minimum: -9007199254740991, maximum: 9007199254740991` on every `.int()`), which
 *   tell a client nothing a JSON number does not (1.2 of the 43.5 KB of `tools/list`); bounds an operation sets
 *   itself are kept;
 * - zod's own regular expression for a UUID beside `format: "uuid"`, which already says it (4 of the 42 KB of
 *   `tools/list`); a pattern an operation sets itself is kept.
 */
export function publishedJsonSchema(type: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const schema = z.toJSONSchema(type, {
    io,
    unrepresentable: 'any',
    override: ({ jsonSchema }) => {
      if (jsonSchema.format === 'uuid' && jsonSchema.pattern === ZOD_UUID_PATTERN) delete jsonSchema.pattern;
      if (jsonSchema.type !== 'integer') return;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
    },
  }) as JsonSchema;
  delete schema.$schema;
  return schema;
}
