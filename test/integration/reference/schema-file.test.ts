import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rowSchemas, referenceDataSchema } from '../../../src/reference/schema.ts';
import { ROOT, loadFixture, type Json } from './helpers.ts';

const published: Json = JSON.parse(readFileSync(join(ROOT, 'src/reference/reference-data.schema.json'), 'utf8'));

// The JSON Schema is what producers of the file read; it must describe what the import accepts.
describe('reference-data.schema.json', () => {
  it('lists the same sections and, per row, the same required fields as the import', () => {
    expect(Object.keys(published.properties).sort()).toEqual(Object.keys(referenceDataSchema.shape).sort());
    for (const [name, schema] of Object.entries(rowSchemas)) {
      const item = published.properties[name].items;
      const fields = Object.keys(schema.shape).sort();
      // Fields added after files were already being written are optional: older files stay valid.
      const required = Object.entries(schema.shape as Record<string, { safeParse(v: unknown): { success: boolean } }>)
        .filter(([, field]) => !field.safeParse(undefined).success)
        .map(([field]) => field)
        .sort();
      expect(Object.keys(item.properties).sort(), name).toEqual(fields);
      expect([...item.required].sort(), name).toEqual(required);
      expect(item.additionalProperties, name).toBe(false);
    }
    expect(published.additionalProperties).toBe(false);
  });

  it('is satisfied by the fixture', () => {
    expect(referenceDataSchema.safeParse(loadFixture()).success).toBe(true);
  });
});
