import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/migrations.ts';
import { PgliteDb } from '../../../src/db/pglite.ts';
import type { Db } from '../../../src/db/types.ts';
import { canonicalEvent, canonicalJson, chainHash, plainNumber, type ChainedFields } from '../../../src/store/chain.ts';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';

/**
 * The canonical JSON of an event and its hash are defined once (src/store/chain.ts) and computed
 * twice: by the database inside every append (migration 17) and here, by verifiers and the
 * KurrentDB adapter. Both must write the very same bytes for every value JSON can carry.
 */

type Sample = ChainedFields;

/** The database's canonical JSON and hash (after `previous`) of each sample, in one round trip. */
async function inDatabase(db: Db, samples: Sample[], previous: string): Promise<{ canonical: string; hash: string }[]> {
  const r = await db.query<{ canonical: string; hash: string }>(
    `SELECT convert_from(c, 'UTF8') AS canonical, encode(vac_chain_step(NULL, decode($2, 'hex'), c), 'hex') AS hash
       FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS t(s, i),
            LATERAL vac_event_canonical(s->>'stream', (s->>'revision')::bigint, s->>'type', (s->>'version')::integer, s->'data', s->'metadata') AS c
      ORDER BY i`,
    [JSON.stringify(samples), previous],
  );
  return r.rows;
}

const PREVIOUS = '5f'.repeat(32);

const awkward: unknown[] = [
  // Keys: jsonb orders them shorter first in UTF-8 bytes, then byte by byte; "é" is two bytes.
  { b: 1, a: 2, aa: 3, é: 4, z: 5, ñandú: 6, '😀': 7, '': 8, Z: 9, 'ab~': 10, 'a\u007f': 11, Ωmega: 12 },
  // Strings: escapes, controls, quotes, astral characters, separators JSON.stringify keeps.
  { s: 'comillas " y \\ barra\n\t\r\b\f\u0001\u001f\u007f', u: 'Bogotá — ñ 😀 \u2028\u2029 \ufeff' },
  // Numbers: exponents both ways, negative zero, binary fractions, the extremes of a double.
  { n: [0, -0, 1, -1, 0.1 + 0.2, 1e21, 1.5e21, 1e-7, -1.5e-10, 123456789.125, 2 ** 53, -(2 ** 53) - 2, 5e-324, 1.7976931348623157e308] },
  // Nesting, empties, literals.
  { a: [[], {}, [null, true, false], { x: { y: { z: [1, 'dos', { tres: 3 }] } } }], e: {}, l: [] },
];

function wellFormed(v: unknown): boolean {
  const text = JSON.stringify(v);
  // PostgreSQL's text cannot hold U+0000 nor a lone surrogate: no append can store them.
  return !text.includes('\\u0000') && !/\\ud[89a-f]/i.test(text);
}

function agreement(label: string, open: () => Promise<{ db: Db; close(): Promise<void> } | undefined>) {
  describe(`canonical JSON and hash, in TypeScript and in ${label}`, () => {
    let target: { db: Db; close(): Promise<void> } | undefined;
    beforeAll(async () => {
      target = await open();
    }, 60_000);
    afterAll(async () => {
      await target?.close();
    });

    it('agree on keys, strings and numbers chosen to differ', async () => {
      const samples = awkward.map((data, i) => ({
        stream: `worker-ñ-${i}`,
        revision: i,
        type: 'Tipo',
        version: 2,
        data,
        metadata: { userEmail: 'josé@empresa.co', n: 1e-7 },
      }));
      const db = await inDatabase(target!.db, samples, PREVIOUS);
      expect(db.map((r) => r.canonical)).toEqual(samples.map(canonicalEvent));
      expect(db.map((r) => r.hash)).toEqual(samples.map((s) => chainHash(PREVIOUS, s)));
    });

    it('agree on any JSON value', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              data: fc.jsonValue({ stringUnit: 'binary' }),
              metadata: fc.jsonValue({ stringUnit: 'grapheme' }),
              stream: fc.string({ unit: 'grapheme', minLength: 1 }),
            }),
            { minLength: 1, maxLength: 40 },
          ),
          async (generated) => {
            const samples = generated.filter((g) => wellFormed(g)).map((g, i) => ({ ...g, revision: i, type: 'T', version: 1 }));
            if (samples.length === 0) return;
            // What the append stores is the JSON of the value, which is what both sides read.
            const stored = JSON.parse(JSON.stringify(samples)) as Sample[];
            const db = await inDatabase(target!.db, stored, '');
            expect(db.map((r) => r.canonical)).toEqual(stored.map(canonicalEvent));
            expect(db.map((r) => r.hash)).toEqual(stored.map((s) => chainHash('', s)));
          },
        ),
        { numRuns: 60 },
      );
    });
  });
}

agreement("the suite's database", async () => {
  const t: TestDb = await freshDb();
  return { db: t.db, close: () => t.drop() };
});

// The suite's database is PGlite already when there is no server.
if (hasServer()) {
  agreement('the embedded PGlite', async () => {
    const db = await PgliteDb.open();
    await migrate(db);
    return { db, close: () => db.close() };
  });
}

describe('canonical JSON in TypeScript', () => {
  it('writes numbers without an exponent, as numeric prints them', () => {
    expect([1e21, 1.5e21, -1e21, 1e-7, 1.25e-7, -1.5e-10, 123e-20, 0.5, 100, -0].map(plainNumber)).toEqual([
      '1000000000000000000000',
      '1500000000000000000000',
      '-1000000000000000000000',
      '0.0000001',
      '0.000000125',
      '-0.00000000015',
      '0.00000000000000000123',
      '0.5',
      '100',
      '0',
    ]);
  });

  it('leaves out what JSON leaves out and writes what JSON writes for the rest', () => {
    const when = new Date('2026-01-05T00:00:00Z');
    expect(canonicalJson({ b: undefined, f: () => 1, a: [undefined, NaN, Infinity], when })).toBe(
      '{"a": [null, null, null], "when": "2026-01-05T00:00:00.000Z"}',
    );
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});
