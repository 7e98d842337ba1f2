import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W, client, type Answer, type Client } from '../support/http.ts';
import { documentOf, generateDataset } from '../support/dataset.ts';
import { EXTRA } from '../support/payroll-corners.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Payroll sheets that break none of their days down (no diasIncapacidad, diasLicenciaRemunerada,
 * diasVacaciones, diasLicenciaNoRemunerada nor diasSuspension) answer as they did before those
 * fields existed: the consult, the periods, the settlement preview and the register of the
 * fixture's workers, the payroll corners and generated workers, pinned in a file written by the
 * code before the leave kinds reached the ledger.
 */

const FIRST = 700_000;
const GENERATED = generateDataset({ workers: 4, maxPeople: null, firstWorkerId: FIRST, subgerencias: 2, historicPerWorker: 3 });
const DOCUMENTS = [
  ...Object.values(W),
  ...EXTRA.asociados.map((a) => a.numeroDocumento),
  ...GENERATED.asociados.map((a) => a.numeroDocumento),
];

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startTestServer({
    env: { VACACIONES_TODAY: '2026-11-21' },
    beforeStart: async (env) => {
      await importThroughCli(env, EXTRA);
      await importThroughCli(env, GENERATED);
    },
  });
  c = client(srv.url, srv.keys.acceptance!);
}, 300_000);
afterAll(async () => {
  await srv?.stop();
});

/**
 * The answer without the fields the leave kinds added (each period's diasDescontados), which
 * must be all zero here: every other field is compared as it was.
 */
function withoutLeave(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutLeave);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === 'diasDescontados') expect(x).toEqual({ licenciaNoRemunerada: 0, suspension: 0 });
    else out[k] = withoutLeave(x);
  }
  return out;
}

const shown = (a: Answer) => ({ status: a.status, body: withoutLeave(a.body) });

describe('existing payroll, without any leave kind, gives the answers it gave before', () => {
  it('consult, periods, settlement and register of every worker', { timeout: 300_000 }, async () => {
    expect(documentOf(FIRST)).toBe(GENERATED.asociados[0]!.numeroDocumento);
    const out: Record<string, unknown> = {};
    for (const doc of DOCUMENTS) {
      const q = { numeroDocumento: doc, emailResponsable: ADMIN };
      out[`consult ${doc}`] = shown(await c.get('/api/vacaciones/consultdatavacations', q));
      out[`periods ${doc}`] = shown(await c.get('/api/vacaciones/periodos', q));
      out[`settlement ${doc}`] = shown(await c.get('/api/vacaciones/liquidacion', { ...q, fechaRetiro: '2026-12-31' }));
      out[`book ${doc}`] = shown(await c.get('/api/vacaciones/libro', { ...q, fechaCorte: '2026-11-21' }));
    }
    await expect(`${JSON.stringify(out, null, 1)}\n`).toMatchFileSnapshot('./__snapshots__/leave-unchanged.json');
  });
});
