import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentOf, generateDataset } from '../support/dataset.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../support/db.ts';
import { ADMIN, CODE_RE, client, vacationForm } from '../support/http.ts';
import {
  createKeyThroughCli,
  importThroughCli,
  serveEnv,
  snapshotReadModels,
  spawnServe,
  waitForProjections,
  withPg,
  type ServeProcess,
} from '../support/reliability-server.ts';
import { runCli } from '../support/server.ts';

/**
 * A server killed with SIGKILL in the middle of a burst of bookings, then started again over the
 * same database: whatever was acknowledged survives, nothing is half-written, and the read
 * models the restarted projectors reach are exactly those a rebuild from the events gives.
 */

const FIRST = 300_000;
const BURST = 200;
const CONCURRENCY = 20;
const KILL_AFTER = 50;

interface Outcome {
  worker: number;
  status: number | 'no answer';
  code?: string;
}

describe.skipIf(!hasServer())(`a server killed mid-burst and started again${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let env: NodeJS.ProcessEnv;
  let key: string;
  let first: ServeProcess | undefined;
  let second: ServeProcess | undefined;
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    t = await freshDb();
    await t.db.close();
    env = serveEnv(t.url!);
    await importThroughCli(env, generateDataset({ workers: BURST, maxPeople: null, firstWorkerId: FIRST }));
    key = await createKeyThroughCli(env, 'crash');
    first = await spawnServe(env);

    const c = client(first.url, key);
    let next = 0;
    let answered = 0;
    let killing: Promise<void> | undefined;
    const lane = async () => {
      while (killing === undefined && next < BURST) {
        const worker = FIRST + next++;
        try {
          const r = await c.post('/api/vacaciones/add', vacationForm(documentOf(worker), '2026-12-01', 6));
          outcomes.push({ worker, status: r.status, code: r.status === 201 ? (r.body.data.codigo_pila as string) : undefined });
        } catch {
          outcomes.push({ worker, status: 'no answer' });
          continue;
        }
        if (++answered === KILL_AFTER) killing = first!.kill();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, lane));
    await killing;
    second = await spawnServe(env);
  }, 120_000);

  afterAll(async () => {
    await first?.kill();
    await second?.stop();
    await t?.drop();
  });

  const acknowledged = () => outcomes.filter((o) => o.status === 201);

  it('was killed mid-burst: every answer before the kill was a 201, and not all requests were answered', () => {
    expect(first!.child.signalCode).toBe('SIGKILL');
    const answered = outcomes.filter((o) => o.status !== 'no answer');
    expect(answered.filter((o) => o.status !== 201)).toEqual([]);
    expect(acknowledged().length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(acknowledged().length).toBeLessThan(BURST);
    for (const o of acknowledged()) expect(o.code).toMatch(CODE_RE);
  });

  it('still has every acknowledged booking after the restart', async () => {
    const c = client(second!.url, key);
    for (const o of acknowledged()) {
      const one = await c.get(`/api/vacaciones/registro/${o.code}`, { emailResponsable: ADMIN });
      expect(one.status, `${o.code}: ${one.text}`).toBe(200);
      const list = await c.get('/api/vacaciones', { numeroDocumento: documentOf(o.worker), emailResponsable: ADMIN });
      expect(list.status, list.text).toBe(200);
      expect((list.body.vacaciones as { codigoPila: string }[]).map((v) => v.codigoPila)).toEqual([o.code]);
    }
  });

  it('has no half-written booking in the event store', async () => {
    await withPg(t.url!, async (pg) => {
      const created = await pg.query<{ stream: string; code: string; worker: string }>(
        `SELECT stream, data->>'codigoPila' AS code, data->>'workerId' AS worker FROM events WHERE type = 'VacationCreated'`,
      );
      const assigned = await pg.query<{ stream: string; code: string; worker: string }>(
        `SELECT stream, data->>'codigoPila' AS code, data->>'workerId' AS worker FROM events WHERE type = 'PilaCodeAssigned'`,
      );
      const pila = new Map(assigned.rows.map((r) => [r.code, r]));
      for (const v of created.rows) {
        expect(v.stream).toBe(`worker-${v.worker}`);
        const p = pila.get(v.code);
        expect(p, `PilaCodeAssigned of ${v.code}`).toBeDefined();
        expect(p).toEqual({ stream: `pila-${v.code}`, code: v.code, worker: v.worker });
      }
      // And no code was issued without its booking.
      expect(new Set(assigned.rows.map((r) => r.code))).toEqual(new Set(created.rows.map((r) => r.code)));
      // The third stream of the same append: the places taken in the subgerencia's month.
      const slots = await pg.query<{ stream: string; code: string }>(
        `SELECT stream, data->>'codigoPila' AS code FROM events WHERE type = 'SlotsBooked'`,
      );
      expect(slots.rows.map((r) => r.stream).filter((s) => s !== 'unit-SG-1-2026-12')).toEqual([]);
      expect(slots.rows.map((r) => r.code).sort()).toEqual(created.rows.map((r) => r.code).sort());
      // Every acknowledged code is among the facts; requests cut by the kill may or may not be.
      const stored = new Set(created.rows.map((r) => r.code));
      for (const o of acknowledged()) expect(stored.has(o.code!), o.code).toBe(true);
      // One request per worker: no booking was applied twice.
      expect(new Set(created.rows.map((r) => r.worker)).size).toBe(created.rows.length);
    });
  });

  it('reaches read models equal to a rebuild from the events', async () => {
    const lags = await waitForProjections(env);
    expect(Object.values(lags).length).toBeGreaterThan(0);
    expect(lags, 'projections caught up after the restart').toEqual(Object.fromEntries(Object.keys(lags).map((n) => [n, 0])));
    const live = await withPg(t.url!, snapshotReadModels);
    const codes = await withPg(t.url!, async (pg) =>
      (await pg.query<{ code: string }>(`SELECT data->>'codigoPila' AS code FROM events WHERE type = 'VacationCreated'`)).rows.map(
        (r) => r.code,
      ),
    );
    expect(live.rm_vacations).toHaveLength(codes.length);

    const r = await runCli({ ...env, LOG_LEVEL: 'silent' }, ['projections', 'rebuild']);
    expect(r.code, r.stderr).toBe(0);
    const rebuilt = await withPg(t.url!, snapshotReadModels);
    expect(Object.keys(rebuilt).sort()).toEqual(Object.keys(live).sort());
    for (const table of Object.keys(live)) expect(rebuilt[table], table).toEqual(live[table]);
  });
});
