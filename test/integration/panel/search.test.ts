import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Queryable } from '../../../src/db/types.ts';
import { searchWorkers } from '../../../src/reference/search.ts';
import { ADMIN, W } from '../../support/http.ts';
import { PanelClient, message, startPanelService, type PanelService } from '../../support/panel.ts';

let p: PanelService;
let admin: PanelClient;

/** Workers beyond the fixture's: many sharing a last name, as in a large employer's generated data. */
const MANY = 20_000;

beforeAll(async () => {
  p = await startPanelService({}, { accounts: [ADMIN] });
  admin = new PanelClient(p.service);
  expect((await admin.signIn(ADMIN)).status).toBe(303);
  await p.service.db.query(
    `INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names)
     SELECT 500000 + i, 'CC', (7700000000 + i)::text, 'Nombre ' || i, 'Generado' FROM generate_series(1, $1::int) AS i`,
    [MANY],
  );
  await p.service.db.query(
    `INSERT INTO ref_workers (id, document_type, document_number, first_names, last_names) VALUES
       (600001, 'CC', '77000001', 'Ángela', 'Núñez Ibáñez'),
       (600002, 'PA', 'AB12345', 'Óscar', 'Úsuga')`,
  );
});
afterAll(async () => {
  await p?.stop();
});

const text = (body: string) =>
  body
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

/** Every node of the search's plan as the database ran it: the search's own query, explained. */
async function planOf(search: string, limit: number): Promise<PlanNode[]> {
  const nodes: PlanNode[] = [];
  const explaining: Queryable = {
    async query<R>(sql: string, params?: unknown[]) {
      const r = await p.service.db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      const raw = r.rows[0]!['QUERY PLAN'];
      const plan = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
      const walk = (n: PlanNode) => {
        nodes.push(n);
        n.Plans?.forEach(walk);
      };
      walk(plan[0]!.Plan);
      return { rows: [] as R[], rowCount: 0 };
    },
    exec: async () => {},
    copyFrom: async () => {},
  };
  await searchWorkers(explaining, search, limit);
  return nodes;
}

describe('the search of workers', () => {
  it('finds by the beginning of a name without case or accents, and by the beginning of a document', async () => {
    expect((await searchWorkers(p.service.db, 'NUNEZ')).hits.map((h) => h.id)).toEqual([600001]);
    expect((await searchWorkers(p.service.db, 'ángela núñ')).hits.map((h) => h.id)).toEqual([600001]);
    expect((await searchWorkers(p.service.db, 'oscar')).hits.map((h) => h.id)).toEqual([600002]);
    expect((await searchWorkers(p.service.db, 'AB123')).hits.map((h) => h.id)).toEqual([600002]);
    const byPrefix = await searchWorkers(p.service.db, '770000000', 5);
    expect(byPrefix.hits.map((h) => h.documentNumber)).toEqual(['7700000001', '7700000002', '7700000003', '7700000004', '7700000005']);
    expect(byPrefix.more).toBe(true);
    expect(await searchWorkers(p.service.db, 'zz')).toEqual({ hits: [], more: false });
    // LIKE's own signs are letters like any other.
    expect((await searchWorkers(p.service.db, 'Gen%')).hits).toEqual([]);
    expect((await searchWorkers(p.service.db, '_enerado')).hits).toEqual([]);
  });

  it('puts the document typed first, then documents that begin with it, then names', async () => {
    const r = await searchWorkers(p.service.db, '77000001', 20);
    expect(r.hits[0]!.id).toBe(600001);
    expect(r.hits.slice(1).map((h) => h.documentNumber)).toEqual(
      [...r.hits.slice(1).map((h) => h.documentNumber)].sort().filter((d) => d.startsWith('77000001')),
    );
  });

  it('answers at most the limit, says when there are more, and lists names in alphabetical order', async () => {
    const few = await searchWorkers(p.service.db, 'nombre 1234', 20);
    // "Nombre 1234" and "Nombre 12340" to "Nombre 12349": 11, all of them.
    expect(few.more).toBe(false);
    expect(few.hits).toHaveLength(11);
    const many = await searchWorkers(p.service.db, 'generado', 20);
    expect(many.hits).toHaveLength(20);
    expect(many.more).toBe(true);
    const names = many.hits.map((h) => `${h.lastNames} ${h.firstNames}`);
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'es')));
    const exactlyAll = await searchWorkers(p.service.db, 'nombre 1234', 11);
    expect(exactlyAll).toMatchObject({ more: false });
    expect((await searchWorkers(p.service.db, 'nombre 1234', 10)).more).toBe(true);
  });

  it.each([
    ['without statistics', ''],
    ['with statistics', 'ANALYZE ref_workers'],
  ])('reads at most the limit and one more from each index, however many workers match (%s)', async (_label, before) => {
    if (before) await p.service.db.query(before);
    for (const search of ['generado', 'nombre 1', 'nombre 4 generado', '7700000', 'zz']) {
      const reads = (await planOf(search, 20)).filter((n) => n['Relation Name'] === 'ref_workers' || /Index/.test(n['Node Type']));
      expect(reads.length).toBeGreaterThan(0);
      for (const n of reads) {
        expect(n['Node Type'], `${search}: ${n['Node Type']}`).not.toMatch(/Seq Scan/);
        expect(n['Actual Rows'], `${search}: ${n['Node Type']} on ${n['Relation Name']}`).toBeLessThanOrEqual(21);
      }
    }
  });
});

describe('the Trabajador page', () => {
  it('lists the first results and says there are more', async () => {
    const r = await admin.get('/panel/trabajador?q=generado');
    expect(r.status).toBe(200);
    expect(text(r.body)).toContain('Los primeros 20 resultados para «generado»');
    expect(message(r.body.slice(r.body.indexOf('</table>')))).toContain('Hay más trabajadores que coinciden');
    const some = await admin.get(`/panel/trabajador?q=${encodeURIComponent('Nombre 1234')}`);
    expect(text(some.body)).toContain('11 resultados para «Nombre 1234»');
    expect(some.body).not.toContain('Hay más trabajadores');
  });

  it('goes straight to the worker whose whole document is typed, and lists those whose documents begin with it', async () => {
    const whole = await admin.get(`/panel/trabajador?q=${W.maria}`);
    expect(whole.location).toBe(`/panel/trabajador/${W.maria}`);
    const start = await admin.get(`/panel/trabajador?q=${W.maria.slice(0, 8)}`);
    expect(start.status).toBe(200);
    expect(text(start.body)).toContain('Gómez Restrepo, María Fernanda');
    expect(text(start.body)).toContain('Rodríguez Pérez, Juan Carlos');
  });
});
