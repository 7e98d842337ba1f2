import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { historicImportOptions, historicImporter } from '../../../src/reference/historic-events.ts';
import { CURRENT_VERSION, eventMetadataSchema, eventSchemas } from '../../../src/events/types.ts';
import { holidayCalendar } from '../../../src/config/holidays.ts';
import { migrate } from '../../../src/migrations.ts';
import { PgliteDb } from '../../../src/db/pglite.ts';
import type { Db } from '../../../src/db/types.ts';
import { ImportValidationError, importReferenceData, importReferenceSource } from '../../../src/reference/import.ts';
import { fileSource } from '../../../src/reference/sources.ts';
import { chainHash } from '../../../src/store/chain.ts';
import { PostgresEventStore } from '../../../src/store/postgres-store.ts';
import { freshDb, hasServer, type TestDb } from '../../support/db.ts';
import { scaleObject, writeScaleFile } from '../../support/scale-dataset.ts';
import { loadFixture, tableCounts, type Json } from './helpers.ts';

const calendar = holidayCalendar({ holidaysFile: undefined });
/** The service's business date the imports run on (VACACIONES_TODAY in the acceptance tests). */
const TODAY = '2026-11-21';
const historic = (db: Db) => historicImportOptions(new PostgresEventStore(db), calendar, () => TODAY);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vac-import-stream-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The fixture as NDJSON: one row per line, its section in `tipo`, sections interleaved. */
function fixtureNdjson(edit: (f: Json) => void = () => {}): string {
  const f = loadFixture();
  edit(f);
  const lines: string[] = [];
  const sections = Object.keys(f);
  const longest = Math.max(...sections.map((s) => f[s].length));
  // Row i of every section in turn, so that sections mix and contracts come before their workers.
  for (let i = 0; i < longest; i++) {
    for (const s of [...sections].reverse()) if (i < f[s].length) lines.push(JSON.stringify({ tipo: s, ...f[s][i] }));
  }
  const path = join(dir, `fixture-${lines.length}-${Math.random().toString(16).slice(2)}.ndjson`);
  writeFileSync(path, `${lines.join('\n')}\n\n`);
  return path;
}

async function eventCount(db: Db): Promise<number> {
  return Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM events')).rows[0]!.n);
}

/**
 * Streams whose events are not numbered from 0 without a gap, whose row is not at their last
 * revision, or whose hash chain does not hold, recomputed here (src/store/chain.ts) and by the
 * database's own functions (vac_event_canonical, as appends of requests make the links).
 */
async function brokenStreams(db: Db): Promise<string[]> {
  const r = await db.query<{
    stream: string;
    revision: string;
    type: string;
    version: number;
    data: unknown;
    metadata: unknown;
    hash: string;
    last: string;
    server: string;
  }>(
    `SELECT e.stream, e.revision::text, e.type, e.version, e.data, e.metadata, encode(e.hash, 'hex') AS hash, s.revision::text AS last,
            encode(sha256(coalesce(p.hash, ''::bytea) || vac_event_canonical(e.stream, e.revision, e.type, e.version, e.data, e.metadata)), 'hex') AS server
       FROM events e JOIN streams s ON s.stream = e.stream
       LEFT JOIN events p ON p.stream = e.stream AND p.revision = e.revision - 1
      ORDER BY e.stream, e.revision`,
  );
  const broken = new Set<string>();
  const seen = new Map<string, { revision: number; hash: string; last: number }>();
  for (const e of r.rows) {
    const before = seen.get(e.stream);
    const revision = Number(e.revision);
    if (revision !== (before ? before.revision + 1 : 0)) broken.add(e.stream);
    const hash = chainHash(before?.hash ?? '', {
      stream: e.stream,
      revision,
      type: e.type,
      version: e.version,
      data: e.data,
      metadata: e.metadata,
    });
    if (hash !== e.hash || e.server !== e.hash) broken.add(e.stream);
    seen.set(e.stream, { revision, hash: e.hash, last: Number(e.last) });
  }
  for (const [stream, { revision, last }] of seen) if (revision !== last) broken.add(stream);
  return [...broken];
}

async function problemsOf(run: Promise<unknown>): Promise<string[]> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ImportValidationError);
  return (err as ImportValidationError).problems;
}

describe('streamed imports', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('reports every bad row of an NDJSON file by line, index and field, and writes nothing', async () => {
    const path = fixtureNdjson((f) => {
      f.asociados[2].numeroDocumento = '12';
      f.contratos[3].fechaFin = '2026-02-30';
      f.nomina[0].contratoId = 424242;
      f.vacaciones[1].asociadoId = 9998;
    });
    const extra = join(dir, 'extra.ndjson');
    writeFileSync(
      extra,
      `${[
        JSON.stringify({ tipo: 'asociados', id: 5001, tipoDocumento: 'CC', numeroDocumento: 'AB123', nombres: 'A', apellidos: 'B' }),
        '{"tipo": "asociados", "id": ',
        JSON.stringify({ tipo: 'jefes', id: 1 }),
        JSON.stringify({ id: 2 }),
        JSON.stringify({ tipo: 'asociados', id: 5001, tipoDocumento: 'CC', numeroDocumento: 'AB124', nombres: 'C', apellidos: 'D' }),
      ].join('\n')}\n`,
    );
    const problems = await problemsOf(importReferenceSource(t.db, fileSource(path), historic(t.db)));
    const lineOf = (text: string) => Number(/^line (\d+): /.exec(text)?.[1]);
    expect(problems.map((p) => p.replace(/^line \d+: /, ''))).toEqual([
      'asociados[2].numeroDocumento: "12" does not match /^[0-9A-Za-z]{3,20}$/',
      'contratos[3].fechaFin: not a real date (2026-02-30)',
      'nomina[0].contratoId: contrato 424242 does not exist (neither in this file nor in the database)',
      'vacaciones[1].asociadoId: asociado 9998 does not exist (neither in this file nor in the database)',
    ]);
    // Each line number points at the row named: the index-th row of its section in the file.
    const lines = readFileSync(path, 'utf8').split('\n');
    for (const p of problems) {
      const [, section, index] = /: (\w+)\[(\d+)\]/.exec(p)!;
      const upTo = lines.slice(0, lineOf(p)).filter((l) => l !== '' && JSON.parse(l).tipo === section);
      expect(upTo.length - 1).toBe(Number(index));
      expect(JSON.parse(lines[lineOf(p) - 1]!).tipo).toBe(section);
    }

    expect(await problemsOf(importReferenceSource(t.db, fileSource(extra)))).toEqual([
      expect.stringMatching(/^line 2: not valid JSON: /),
      'line 3: tipo: must be one of subgerencias, contratosEmpresa, asociados, contratos, nomina, usuarios, vacaciones; got "jefes"',
      'line 4: tipo: is required',
      'line 5: asociados[1].id: duplicate id 5001 (first at asociados[0], line 1)',
    ]);
    expect(await tableCounts(t.db)).toMatchObject({ ref_workers: 0, ref_payroll_sheets: 0, version: 0 });
    expect(await eventCount(t.db)).toBe(0);
  });

  it('imports the fixture from NDJSON, rows of all sections mixed, then changes nothing and appends nothing the second time', async () => {
    const path = fixtureNdjson();
    const first = await importReferenceSource(t.db, fileSource(path), historic(t.db));
    expect(first.tables.payrollSheets).toEqual({ inserted: 576, updated: 0, unchanged: 0 });
    expect(first.historic).toEqual({ imported: 2, skipped: 0 });
    // Dated by the service's business date, as the commands' events are (the register reads it).
    const dates = await t.db.query<{ d: string | null }>(
      `SELECT DISTINCT metadata->>'businessDate' AS d FROM events WHERE type = 'VacationImported'`,
    );
    expect(dates.rows).toEqual([{ d: TODAY }]);
    const events = await eventCount(t.db);
    expect(events).toBeGreaterThan(2);
    const again = await importReferenceSource(t.db, fileSource(path), historic(t.db));
    expect(again).toMatchObject({ changed: false, version: 1, historic: { imported: 0, skipped: 2 } });
    expect(again.tables.payrollSheets).toEqual({ inserted: 0, updated: 0, unchanged: 576 });
    expect(await eventCount(t.db)).toBe(events);
    // The same data as JSON, read as a stream: nothing to change either.
    const json = join(dir, 'fixture.json');
    writeFileSync(json, JSON.stringify(loadFixture()));
    const asJson = await importReferenceSource(t.db, fileSource(json), historic(t.db));
    expect(asJson).toMatchObject({ changed: false, historic: { imported: 0, skipped: 2 } });
    expect(await eventCount(t.db)).toBe(events);
  });

  it('reads a JSON file as a stream, section by section, and reports the shape of what is not a section', async () => {
    const path = join(dir, 'shapes.json');
    writeFileSync(path, JSON.stringify({ subgerencias: [{ id: 'SG-X', nombre: 'X' }, { id: 7 }], extra: [1, 2], usuarios: { id: 1 } }));
    expect(await problemsOf(importReferenceSource(t.db, fileSource(path)))).toEqual([
      'subgerencias[1].id: expected a string, got 7',
      'subgerencias[1].nombre: is required',
      'file: unknown field "extra"',
      'usuarios: expected an array, got {"id":1}',
    ]);
  });

  it('reads generated files back row for row, as the generator made them, from NDJSON and from JSON', async () => {
    const expected = scaleObject({ workers: 30, sheets: 2, vacations: 1 });
    for (const format of ['ndjson', 'json'] as const) {
      const path = join(dir, `scale.${format}`);
      await writeScaleFile(path, format, { workers: 30, sheets: 2, vacations: 1 });
      const read: Record<string, unknown[]> = {};
      for await (const item of fileSource(path)) {
        expect(item.kind).toBe('row');
        if (item.kind === 'row') (read[item.section] ??= []).push(item.value);
      }
      expect(read).toEqual(expected);
    }
  });
});

describe('an import of 20,000 historic vacations over 4,000 workers', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });
  const data = () => scaleObject({ workers: 4000, sheets: 12, vacations: 5, subgerencias: 20 });

  it('keeps nothing when the event store fails after some thousands of events are written', async () => {
    const store = new PostgresEventStore(t.db);
    const real = historicImporter(store, calendar);
    let chunks = 0;
    const failure = await importReferenceData(t.db, data(), {
      beforeWrites: (tx) => store.claimAppend(tx),
      historic: async (tx, rows) => {
        if (++chunks === 3) throw new Error('event store unavailable');
        return real(tx, rows);
      },
    }).catch((e: Error) => e);
    expect((failure as Error).message).toBe('event store unavailable');
    expect(chunks).toBe(3);
    expect(await tableCounts(t.db)).toMatchObject({ ref_workers: 0, ref_contracts: 0, ref_payroll_sheets: 0, version: 0 });
    expect(await eventCount(t.db)).toBe(0);
  }, 120_000);

  it('takes well under a minute, and a second import changes nothing and appends no event', async () => {
    const started = performance.now();
    const report = await importReferenceData(t.db, data(), historic(t.db));
    const ms = performance.now() - started;
    expect(report.tables.workers.inserted).toBe(4000);
    expect(report.tables.payrollSheets.inserted).toBe(48_000);
    expect(report.historic).toEqual({ imported: 20_000, skipped: 0 });
    const events = await eventCount(t.db);
    const imported = await t.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'VacationImported'`);
    expect(Number(imported.rows[0]!.n)).toBe(20_000);
    // Growing with the square of the rows took over a minute here; linear work takes seconds.
    expect(ms).toBeLessThan(45_000);

    expect(await brokenStreams(t.db)).toEqual([]);
    // The events are built without checking each against its schema again: each is as its schema has it.
    const sample = await t.db.query<{ type: keyof typeof eventSchemas; version: number; data: unknown; metadata: unknown }>(
      `SELECT type, version, data, metadata FROM (SELECT *, row_number() OVER (PARTITION BY type ORDER BY position) AS n FROM events) e WHERE n <= 500`,
    );
    expect(new Set(sample.rows.map((r) => r.type))).toEqual(new Set(['VacationImported', 'PilaCodeAssigned', 'SlotsBooked']));
    for (const e of sample.rows) {
      expect(e.version).toBe(CURRENT_VERSION[e.type]);
      expect(eventSchemas[e.type].parse(e.data)).toEqual(e.data);
      expect(eventMetadataSchema.parse(e.metadata)).toEqual(e.metadata);
    }

    const again = await importReferenceData(t.db, data(), historic(t.db));
    expect(again).toMatchObject({ changed: false, historic: { imported: 0, skipped: 20_000 } });
    expect(await eventCount(t.db)).toBe(events);
  }, 180_000);
});

describe('an import of more historic vacations for workers who have some', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await freshDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it("appends to their streams after the events they hold, each stream's chain going on from its last hash", async () => {
    const first = await importReferenceData(t.db, scaleObject({ workers: 30, sheets: 2, vacations: 2, subgerencias: 3 }), historic(t.db));
    expect(first.historic).toEqual({ imported: 60, skipped: 0 });
    const before = await eventCount(t.db);
    const more = await importReferenceData(t.db, scaleObject({ workers: 30, sheets: 2, vacations: 5, subgerencias: 3 }), historic(t.db));
    expect(more).toMatchObject({ changed: false, historic: { imported: 90, skipped: 60 } });
    expect(await eventCount(t.db)).toBeGreaterThan(before);
    const revisions = await t.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE stream = 'worker-1'`);
    expect(revisions.rows[0]!.n).toBe('5');
    expect(await brokenStreams(t.db)).toEqual([]);
  });
});

describe('the embedded PGlite', () => {
  it.skipIf(!hasServer())(
    'imports the fixture streamed from JSON and from NDJSON (the suite runs on PGlite already without a server)',
    async () => {
      const db = await PgliteDb.open();
      try {
        await migrate(db);
        const json = join(dir, 'pglite.json');
        writeFileSync(json, JSON.stringify(loadFixture()));
        const first = await importReferenceSource(db, fileSource(json), historic(db));
        expect(first.tables.payrollSheets.inserted).toBe(576);
        expect(first.historic).toEqual({ imported: 2, skipped: 0 });
        const again = await importReferenceSource(db, fileSource(fixtureNdjson()), historic(db));
        expect(again).toMatchObject({ changed: false, historic: { imported: 0, skipped: 2 } });
      } finally {
        await db.close();
      }
    },
    60_000,
  );
});
