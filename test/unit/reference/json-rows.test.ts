import { describe, expect, it } from 'vitest';
import { JsonRowWalker, JsonSyntaxError, type Found } from '../../../src/reference/json-rows.ts';

const SECTIONS = new Set(['asociados', 'nomina']);

/** What the walker finds in `text` handed over in chunks of `size` bytes (all at once without). */
function walk(text: string | Buffer, size?: number): Found[] {
  const found: Found[] = [];
  const w = new JsonRowWalker(
    (k) => SECTIONS.has(k),
    (f) => found.push(f),
  );
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const step = size ?? bytes.length;
  for (let i = 0; i < bytes.length; i += step) w.write(bytes.subarray(i, i + step));
  w.end();
  return found;
}

/** What the walker should find, from JSON.parse of the whole document. */
function expected(doc: Record<string, unknown>): Found[] {
  const out: Found[] = [];
  for (const [key, value] of Object.entries(doc)) {
    if (SECTIONS.has(key) && Array.isArray(value)) {
      out.push({ kind: 'array', key });
      for (const row of value) out.push({ kind: 'row', key, value: row });
      out.push({ kind: 'end-array', key });
    } else out.push({ kind: 'member', key, value });
  }
  return out;
}

const TRICKY = `{
  "asociados": [
    {"id": 1, "nombres": "Ana \\"la\\" Pérez", "nota": "llaves } ] { [ y comas , dentro", "barra": "a\\\\"},
    {"id": 2, "nombres": "Ñandú 🌴", "vacio": {}, "lista": [[], [1, [2, {"x": null}]]], "n": -1.5e3},
    7, "texto", true, false, null, -0.25, [1, 2]
  ],
  "otro": {"a": [1, 2, {"b": "]"}]},
  "nomina": [],
  "escalar": 12,
  "asociados2": [1]
}`;

describe('cutting the rows out of an import file as its bytes stream in', () => {
  it('finds every row, member and array as JSON.parse reads them, whatever the chunk size', () => {
    const want = expected(JSON.parse(TRICKY) as Record<string, unknown>);
    expect(walk(TRICKY)).toEqual(want);
    // Every size from one byte up: each boundary falls inside a string, an escape, a number, a multi-byte character.
    for (let size = 1; size <= 64; size++) expect(walk(TRICKY, size)).toEqual(want);
  });

  it('takes a byte order mark before the document and a document that is not an object', () => {
    expect(walk(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"nomina": [1]}')]))).toEqual([
      { kind: 'array', key: 'nomina' },
      { kind: 'row', key: 'nomina', value: 1 },
      { kind: 'end-array', key: 'nomina' },
    ]);
    expect(walk('[1, 2]')).toEqual([{ kind: 'top', value: [1, 2] }]);
    expect(walk(' 42 ', 1)).toEqual([{ kind: 'top', value: 42 }]);
    expect(walk('{}')).toEqual([]);
  });

  it.each([
    ['a missing comma between rows', '{"asociados": [{"id": 1} {"id": 2}]}', /expected ',' or '\]'/],
    ['a missing comma between members', '{"nomina": [] "asociados": []}', /expected ',' or '\}'/],
    ['a missing colon', '{"nomina" []}', /expected ':'/],
    ['a trailing comma in an array', '{"nomina": [1,]}', /unexpected '\]'/],
    ['a key that is not a string', '{nomina: []}', /expected a key/],
    ['a broken row', '{"nomina": [{"id": 1,}]}', /in the value that ends at byte/],
    ['a bad literal', '{"nomina": [nul]}', /in the value that ends/],
    ['content after the document', '{"nomina": []} {}', /after the end of the document/],
    ['a file cut short', '{"nomina": [{"id": 1}', /unexpected end of the file/],
    ['an empty file', '', /unexpected end of the file/],
  ])('refuses %s, saying where', (_what, text, message) => {
    for (const size of [undefined, 1, 3]) expect(() => walk(text, size)).toThrow(JsonSyntaxError);
    expect(() => walk(text)).toThrow(message);
  });
});
