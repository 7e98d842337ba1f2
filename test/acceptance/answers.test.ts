import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN, W, client, vacationForm, type Answer } from '../support/http.ts';
import { runCli, startTestServer, type TestServer } from '../support/server.ts';

/**
 * The figures of consult, calculate and the contract check for every worker of the fixture, and
 * of workers added here for the corners of the payroll rules, pinned in a file: a change in how
 * they are read or stored (caches, read models) must leave every answer as it was, to the peso
 * and the day. The file was written by the code before those figures moved to a read model.
 */

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Fortnightly sheets of a contract for the months [from, to] (YYYY-MM), 15 days each. */
function fortnights(workerId: number, contractId: number, from: string, to: string, pay: number) {
  const rows = [];
  let [y, m] = from.split('-').map(Number) as [number, number];
  while (`${y}-${pad(m)}` <= to) {
    for (const [a, b] of [[1, 15], [16, lastDay(y, m)]] as const) {
      rows.push({ asociadoId: workerId, contratoId: contractId, periodoInicio: `${y}-${pad(m)}-${pad(a)}`, periodoFin: `${y}-${pad(m)}-${pad(b)}`, diasLaborados: 15, compensacionBasica: pay });
    }
    if (++m === 13) [y, m] = [y + 1, 1];
  }
  return rows;
}

const contract = (id: number, workerId: number, start: string | null, end: string | null, extra: Record<string, unknown> = {}) => ({
  id, asociadoId: workerId, contratoEmpresaId: 10, subgerenciaId: 'SG-TEC', fechaInicio: start, fechaFin: end,
  liquidado: false, esAdicional: false, salarioBase: 2_000_000, nivelRiesgo: 1, ...extra,
});

/** Workers for the corners the fixture does not reach. */
export const EXTRA = {
  asociados: [2001, 2002, 2003, 2004, 2005].map((id) => ({ id, tipoDocumento: 'CC', numeroDocumento: `30${id}`, nombres: `Extra ${id}`, apellidos: 'Prueba' })),
  contratos: [
    // Sheets before the contract began and of an additional contract never count as worked; a
    // sheet of the month in course counts once it has ended, but never stands for the IBC.
    contract(20001, 2001, '2025-03-01', '2027-12-31', { salarioBase: 3_100_000 }),
    contract(20002, 2001, '2025-06-01', '2026-12-31', { esAdicional: true, salarioBase: 700_000 }),
    // A settled contract followed by a new one, and a main contract without dates whose sheets
    // cannot be placed in time.
    contract(20003, 2002, '2024-01-01', '2025-06-30', { liquidado: true, salarioBase: 1_800_000 }),
    contract(20004, 2002, '2025-07-01', '2027-06-30', { salarioBase: 2_400_000, nivelRiesgo: 5 }),
    contract(20005, 2002, null, null, { salarioBase: 9_900_000 }),
    // Two contracts starting the same day, no sheets: the IBC is a contract's salary.
    contract(20006, 2003, '2025-01-01', '2027-01-31', { salarioBase: 2_222_222 }),
    contract(20007, 2003, '2025-01-01', '2026-12-31', { salarioBase: 3_333_333 }),
    // Only a contract that starts in the future, and one with a start date but no end.
    contract(20008, 2004, '2027-03-01', '2028-02-28', { salarioBase: 1_500_000 }),
    contract(20009, 2005, '2026-02-01', null, { salarioBase: 1_600_000 }),
  ],
  nomina: [
    ...fortnights(2001, 20001, '2025-01', '2026-10', 1_550_000),
    { asociadoId: 2001, contratoId: 20001, periodoInicio: '2026-11-01', periodoFin: '2026-11-15', diasLaborados: 15, compensacionBasica: 1_600_000 },
    ...fortnights(2001, 20002, '2025-06', '2026-10', 350_000),
    ...fortnights(2002, 20003, '2024-01', '2025-06', 900_000),
    ...fortnights(2002, 20004, '2025-07', '2026-09', 1_200_000),
    ...fortnights(2002, 20005, '2026-01', '2026-10', 50_000),
    ...fortnights(2005, 20009, '2026-02', '2026-10', 800_000),
  ],
  vacaciones: [
    { codigoPila: 'VAC_1750000000001_00002001_00000001', asociadoId: 2001, fechaInicio: '2025-09-01', diasVacaciones: 8, laboraSabado: false, compensado: false, pagado: false, aprobado: true },
    { codigoPila: 'VAC_1750000000002_00002002_00000002', asociadoId: 2002, fechaInicio: '2025-12-01', diasVacaciones: 7, laboraSabado: true, compensado: true, pagado: false, aprobado: false },
  ],
};

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
    asked.push([`contract ${doc}`, () => c.get('/api/contratos/verificarContratoActivo', { numeroDocumento: doc, emailResponsable: ADMIN })]);
    for (const start of STARTS) {
      for (const [name, [extra, lengths]] of Object.entries(VARIANTS)) {
        for (const days of lengths) {
          asked.push([`calculate ${doc} ${start} ${days} ${name}`, () => c.post('/api/vacaciones/calculate', vacationForm(doc, start, days, extra))]);
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
    it(`on ${today}`, { timeout: 120_000 }, async () => {
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
