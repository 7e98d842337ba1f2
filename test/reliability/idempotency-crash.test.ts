import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentOf, generateDataset } from '../support/dataset.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../support/db.ts';
import { ADMIN, client, vacationForm, type Answer, type Fields } from '../support/http.ts';
import { createKeyThroughCli, importThroughCli, serveEnv, spawnServe, withPg, type ServeProcess } from '../support/reliability-server.ts';

/**
 * Keyed writes of every kind (add, edit, delete, approve) run at once against a server that kills
 * itself with SIGKILL when one of them has written its events and before its answer is kept or
 * sent (VACACIONES_TEST_KILL_AFTER_WRITES, a hook only tests set). A new server then gets every
 * key again: a request that was written answers what its first run answered, or would have, and
 * never runs again; one that was not runs once; none is answered 409.
 */

const FIRST = 400_000;
const PER_KIND = 15;
const CONCURRENCY = 12;
const KILL_AFTER = 20;

type Kind = 'add' | 'edit' | 'delete' | 'approve';
const KINDS: Kind[] = ['add', 'edit', 'delete', 'approve'];
/** The event that shows each kind of request written. */
const WRITTEN: Record<Kind, string> = {
  add: 'VacationCreated',
  edit: 'VacationEditStarted',
  delete: 'VacationDeleted',
  approve: 'VacationApproved',
};

interface Job {
  kind: Kind;
  key: string;
  worker: number;
  path: string;
  form: Fields;
  first?: Answer | 'no answer';
}

describe.skipIf(!hasServer())(
  `keyed writes cut by SIGKILL between their append and their answer${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`,
  () => {
    let t: TestDb;
    let env: NodeJS.ProcessEnv;
    let key: string;
    let killed: ServeProcess | undefined;
    let second: ServeProcess | undefined;
    const jobs: Job[] = [];
    const retries = new Map<string, Answer>();
    const again = new Map<string, Answer>();
    /** The keys whose events were in the log before the retries, per kind's event. */
    let writtenBefore = new Set<string>();

    const keyedEvents = (type: string) =>
      withPg(
        t.url!,
        async (pg) =>
          (
            await pg.query<{ key: string; stream: string; data: Record<string, unknown> }>(
              `SELECT metadata->>'idempotencyKey' AS key, stream, data FROM events WHERE type = $1 AND metadata->>'idempotencyKey' LIKE 'crash-%'`,
              [type],
            )
          ).rows,
      );

    beforeAll(async () => {
      t = await freshDb();
      await t.db.close();
      env = serveEnv(t.url!);
      await importThroughCli(env, generateDataset({ workers: PER_KIND * KINDS.length, maxPeople: null, firstWorkerId: FIRST }));
      key = await createKeyThroughCli(env, 'crash');

      // The records the edits, deletions and approvals act on, written before, without keys.
      const setup = await spawnServe(env);
      try {
        const c = client(setup.url, key);
        for (const [k, kind] of KINDS.entries()) {
          for (let i = 0; i < PER_KIND; i++) {
            const worker = FIRST + k * PER_KIND + i;
            const doc = documentOf(worker);
            let form = vacationForm(doc, '2026-12-01', 6);
            let path = '/api/vacaciones/add';
            if (kind !== 'add') {
              const made = await c.post('/api/vacaciones/add', vacationForm(doc, '2026-12-01', 6));
              expect(made.status, made.text).toBe(201);
              const code = made.body.data.codigo_pila as string;
              path = `/api/vacaciones/${kind}`;
              form =
                kind === 'edit'
                  ? vacationForm(doc, '2026-12-09', 6, { codigoPila: code })
                  : { codigoPila: code, emailUserResponsable: ADMIN };
            }
            jobs.push({ kind, key: `crash-${kind}-${i}`, worker, path, form });
          }
        }
      } finally {
        await setup.stop();
      }

      killed = await spawnServe(serveEnv(t.url!, { VACACIONES_TEST_KILL_AFTER_WRITES: String(KILL_AFTER) }));
      const c = client(killed.url, key);
      // Interleaved, so that every kind is in flight when the server dies.
      const order = [...jobs].sort((a, b) => Number(a.key.split('-')[2]) - Number(b.key.split('-')[2]) || a.kind.localeCompare(b.kind));
      let next = 0;
      const lane = async () => {
        while (next < order.length) {
          const job = order[next++]!;
          job.first = await c.post(job.path, job.form, { headers: { 'idempotency-key': job.key } }).catch(() => 'no answer' as const);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, lane));
      await killed.exited;
      writtenBefore = new Set((await Promise.all(KINDS.map((k) => keyedEvents(WRITTEN[k])))).flat().map((r) => r.key));

      second = await spawnServe(env);
      const c2 = client(second.url, key);
      await Promise.all(
        jobs.map(async (job) => retries.set(job.key, await c2.post(job.path, job.form, { headers: { 'idempotency-key': job.key } }))),
      );
      for (const job of jobs) again.set(job.key, await c2.post(job.path, job.form, { headers: { 'idempotency-key': job.key } }));
    }, 240_000);

    afterAll(async () => {
      await killed?.kill();
      await second?.stop();
      await t?.drop();
    });

    it('was killed by its own hook, with requests written and unanswered among those cut', () => {
      expect(killed!.child.signalCode).toBe('SIGKILL');
      const cut = jobs.filter((j) => j.first === 'no answer');
      expect(cut.length).toBeGreaterThan(0);
      expect(cut.filter((j) => writtenBefore.has(j.key)).length, 'a request written but not answered').toBeGreaterThan(0);
      // Every answer the first server gave was a success: the hook killed it before any error.
      for (const j of jobs) if (j.first !== 'no answer') expect(j.first!.status, j.first!.text).toBeLessThan(300);
    });

    it('answers no retry 409, and every retry with a success', () => {
      for (const job of jobs) {
        const r = retries.get(job.key)!;
        expect(r.status, `${job.key}: ${r.text}`).toBe(job.kind === 'add' ? 201 : 200);
      }
    });

    it('answers a retry of a request answered before the kill with that same answer', () => {
      const answered = jobs.filter((j) => j.first !== 'no answer');
      expect(answered.length).toBeGreaterThan(0);
      for (const job of answered) expect(retries.get(job.key)!.text, job.key).toBe((job.first as Answer).text);
    });

    it('wrote each request exactly once, whether it was written before the kill or by its retry', async () => {
      for (const kind of KINDS) {
        const rows = await keyedEvents(WRITTEN[kind]);
        // An edit writes a VacationCreated too: each kind's own keys.
        const keys = rows
          .map((r) => r.key)
          .filter((k) => k.startsWith(`crash-${kind}-`))
          .sort();
        expect(keys, kind).toEqual(
          jobs
            .filter((j) => j.kind === kind)
            .map((j) => j.key)
            .sort(),
        );
      }
    });

    it('answers every retry from the events its request wrote, as the first answer is built', async () => {
      const created = new Map((await keyedEvents('VacationCreated')).map((r) => [r.key, r.data]));
      const deleted = new Map((await keyedEvents('VacationDeleted')).map((r) => [r.key, r.data]));
      const approved = new Map((await keyedEvents('VacationApproved')).map((r) => [r.key, r.data]));
      for (const job of jobs) {
        const data = retries.get(job.key)!.body.data;
        if (job.kind === 'add') {
          const rec = created.get(job.key)!;
          expect(data, job.key).toMatchObject({ codigo_pila: rec.codigoPila, id: rec.recordId, vacaciones: { vacAsociado: job.worker } });
          expect(data.vacaciones.vacFechaFinal).toBe(rec.endDate);
          expect(data.vacaciones.vacValorTotal).toBe(rec.totalValue);
        } else if (job.kind === 'edit') {
          const rec = created.get(job.key)!;
          expect(data, job.key).toMatchObject({
            id: rec.recordId,
            codigoPilaAnterior: job.form.codigoPila,
            codigoPilaNuevo: rec.codigoPila,
          });
          expect(data.vacaciones.vacFechaInicio).toBe('2026-12-09');
        } else if (job.kind === 'delete') {
          expect(data, job.key).toMatchObject({ codigoPila: job.form.codigoPila });
          expect(deleted.get(job.key)!.codigoPila).toBe(job.form.codigoPila);
        } else {
          expect(data, job.key).toMatchObject({ codigoPila: job.form.codigoPila });
          expect(approved.get(job.key)!.codigoPila).toBe(job.form.codigoPila);
        }
      }
    });

    it('keeps the answer a retry rebuilt: the next retry is replayed, byte for byte', () => {
      for (const job of jobs) {
        const a = again.get(job.key)!;
        expect(a.headers.get('idempotent-replayed'), job.key).toBe('true');
        expect(a.status).toBe(retries.get(job.key)!.status);
        expect(a.text).toBe(retries.get(job.key)!.text);
      }
    });
  },
);
