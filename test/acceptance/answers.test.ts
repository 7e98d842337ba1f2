import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN, W, client, vacationForm, type Answer } from '../support/http.ts';
import { EXTRA } from '../support/payroll-corners.ts';
import { runCli, startTestServer, type TestServer } from '../support/server.ts';

/**
 * The figures of consult, calculate and the contract check for every worker of the fixture, and
 * of workers added here for the corners of the payroll rules, pinned in a file: a change in how
 * they are read or stored (caches, read models) must leave every answer as it was, to the peso
 * and the day. The file was written by the code before those figures moved to a read model, and
 * changed once since, when settled contracts left the balance (docs/balance.md): only worker 302002
 * (a settled contract, then a new one) answers differently.
 */

const DOCUMENTS = [...Object.values(W), ...EXTRA.asociados.map((a) => a.numeroDocumento), '999999999'];
const STARTS = ['2025-03-03', '2026-01-05', '2026-08-18', '2026-11-23', '2026-11-28', '2027-04-05'];
/** Each request's extra fields, and the lengths asked with them. */
const VARIANTS: Record<string, [Record<string, string>, number[]]> = {
  plain: [{}, [6, 15]],
  advance: [{ vacPagado: '1' }, [15]],
  compensated: [{ vacCompensado: '1' }, [3]],
  saturday: [{ vacLaboraSabado: '1', vacSeguridadEnNomina: '1' }, [10]],
};

const shown = (a: Answer) => ({ status: a.status, body: a.body });

/** Every answer of a server, keyed by what was asked, a few requests in flight at a time. */
async function answersOf(srv: TestServer): Promise<Record<string, unknown>> {
  const c = client(srv.url, srv.keys.acceptance!);
  const asked: [string, () => Promise<Answer>][] = [];
  for (const doc of DOCUMENTS) {
    asked.push([`consult ${doc}`, () => c.get('/api/vacaciones/consultdatavacations', { numeroDocumento: doc, emailResponsable: ADMIN })]);
    asked.push([
      `contract ${doc}`,
      () => c.get('/api/contratos/verificarContratoActivo', { numeroDocumento: doc, emailResponsable: ADMIN }),
    ]);
    for (const start of STARTS) {
      for (const [name, [extra, lengths]] of Object.entries(VARIANTS)) {
        for (const days of lengths) {
          asked.push([
            `calculate ${doc} ${start} ${days} ${name}`,
            () => c.post('/api/vacaciones/calculate', vacationForm(doc, start, days, extra)),
          ]);
        }
      }
    }
  }
  const out: Record<string, unknown> = {};
  for (let i = 0; i < asked.length; i += 16) {
    const chunk = asked.slice(i, i + 16);
    const answers = await Promise.all(chunk.map(([, ask]) => ask()));
    chunk.forEach(([name], k) => (out[name] = shown(answers[k]!)));
  }
  return out;
}

describe('consult, calculate and the contract check give the answers pinned for the fixture', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vac-answers-'));
  const extraFile = join(dir, 'extra.json');
  writeFileSync(extraFile, JSON.stringify(EXTRA));
  let srv: TestServer | undefined;
  afterAll(async () => {
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const today of ['2026-11-21', '2026-01-10']) {
    it(`on ${today}`, { timeout: 300_000 }, async () => {
      srv = await startTestServer({
        env: { VACACIONES_TODAY: today },
        beforeStart: async (env) => {
          const r = await runCli(env, ['import', extraFile]);
          expect(r.code, r.stderr).toBe(0);
        },
      });
      try {
        const answers = await answersOf(srv);
        await expect(`${JSON.stringify(answers, null, 1)}\n`).toMatchFileSnapshot(`./__snapshots__/answers-${today}.json`);
      } finally {
        await srv.stop();
        srv = undefined;
      }
    });
  }
});
