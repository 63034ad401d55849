import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { publishedJsonSchema } from './json-schema.ts';

describe('a published JSON Schema', () => {
  const schema = z.object({
    id: z.uuid(),
    tag: z.string().regex(/^[a-z]+$/),
    slug: z.uuid().regex(/^0/),
    count: z.number().int(),
    limit: z.number().int().min(1).max(500),
  });
  const published = publishedJsonSchema(schema, 'input') as { $schema?: string; properties: Record<string, Record<string, unknown>> };

  it("says a UUID by its format, without zod's regular expression", () => {
    expect(published.properties.id).toEqual({ type: 'string', format: 'uuid' });
  });

  it('keeps a pattern a schema sets itself, on a UUID too', () => {
    expect(published.properties.tag).toMatchObject({ pattern: '^[a-z]+$' });
    expect(JSON.stringify(published.properties.slug)).toContain('^0');
  });

  it("leaves out the safe-integer bounds zod adds, and keeps an operation's own bounds", () => {
    expect(published.properties.count).toEqual({ type: 'integer' });
    expect(published.properties.limit).toEqual({ type: 'integer', minimum: 1, maximum: 500 });
  });

  it('names no dialect of its own', () => {
    expect(published.$schema).toBeUndefined();
  });
});
