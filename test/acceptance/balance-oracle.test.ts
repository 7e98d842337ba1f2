import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HolidayCalendar, isBusinessDay } from '../../src/domain/index.ts';
import { arbWorker, day, governing, modelAvailable, modelSettlement, type ModelWorker } from '../support/balance-model.ts';
import { ADMIN, client, vacationForm, type Client } from '../support/http.ts';
import { runCli, startTestServer, type TestServer } from '../support/server.ts';

/**
 * The reference model of the balance (test/support/balance-model.ts) against the running service:
 * a generated company imported from a reference file (contracts of mixed risk, settled or not,
 * payroll with gaps and 0-day sheets, historic vacations, some deleted through the API), then the
 * consult, the periods and the register on today, and calculate and the settlement on another
 * date, worker by worker, each equal to the model's figure to two decimals.
 */

const TODAY = '2026-11-21';
const SG = 'SG-ORACLE';
const calendar = new HolidayCalendar();

/** The model's days shown with two decimals, half up on the magnitude, as answers show them. */
const shown = (units: number) => (Math.sign(units) * Math.floor((Math.abs(units) * 200 + 360) / 720)) / 100;

/** Generated workers: their numbers in the file, a date to ask calculate and the settlement about. */
const workers = fc
  .sample(fc.tuple(arbWorker, fc.integer({ min: 0, max: 2600 })), { numRuns: 30, seed: 20_261_126 })
  .map(([w, offset], i) => {
    // Records the HTTP interface cannot interrupt are enjoyed whole; deletions go through the API.
    const model: ModelWorker = { ...w, records: w.records.map((r) => ({ ...r, returned: 0 })) };
    let asked = day('2021-01-01', offset);
    while (!isBusinessDay(asked, false, calendar)) asked = day(asked, 1);
    return { id: 5001 + i, document: `77${5001 + i}`, model, asked };
  });

const companyOf = (w: ModelWorker) => 7000 + w.annual * 100 + w.annualHighRisk;

function referenceFile() {
  const companies = new Map<number, ModelWorker>();
  for (const { model } of workers) companies.set(companyOf(model), model);
  return {
    subgerencias: [{ id: SG, nombre: 'Oráculo' }],
    contratosEmpresa: [...companies].map(([id, w]) => ({
      id,
      nombre: `Contrato ${id}`,
      vacaciones: {
        diasVacacionesAnuales: w.annual,
        diasVacacionesAnualesAltoRiesgo: w.annualHighRisk,
        diasMinimosDisfrutados: 1,
        vacacionesAnticipadas: true,
        diasVacacionesAnticipadas: 360,
        numeroPersonasVacaciones: null,
      },
    })),
    asociados: workers.map((w) => ({
      id: w.id,
      tipoDocumento: 'CC',
      numeroDocumento: w.document,
      nombres: 'Oráculo',
      apellidos: `${w.id}`,
    })),
    contratos: workers.flatMap((w) =>
      w.model.contracts.map((c) => ({
        id: w.id * 10 + c.id,
        asociadoId: w.id,
        contratoEmpresaId: companyOf(w.model),
        subgerenciaId: SG,
        fechaInicio: c.start,
        fechaFin: c.end,
        liquidado: c.settled,
        esAdicional: c.additional,
        salarioBase: 3_000_000,
        nivelRiesgo: c.risk,
      })),
    ),
    nomina: workers.flatMap((w) =>
      w.model.sheets.map((s) => ({
        asociadoId: w.id,
        contratoId: w.id * 10 + s.contract,
        periodoInicio: s.start,
        periodoFin: s.end,
        diasLaborados: s.days,
        compensacionBasica: 100_000,
        ...(s.leave && {
          diasIncapacidad: s.leave.sick,
          diasLicenciaRemunerada: s.leave.paid,
          diasVacaciones: s.leave.vacation,
          diasLicenciaNoRemunerada: s.leave.unpaid,
          diasSuspension: s.leave.suspension,
        }),
      })),
    ),
    vacaciones: workers.flatMap((w) =>
      w.model.records.map((r, i) => ({
        codigoPila: `VAC_1700000000000_${w.id.toString(16).padStart(8, '0')}_${i.toString(16).padStart(8, '0')}`,
        asociadoId: w.id,
        fechaInicio: r.start,
        diasVacaciones: r.days,
        laboraSabado: false,
        compensado: r.compensated,
        pagado: false,
        aprobado: false,
      })),
    ),
  };
}

describe('the balance through HTTP equals the reference model, worker by worker', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vac-oracle-'));
  let srv: TestServer;
  let c: Client;
  beforeAll(async () => {
    const file = join(dir, 'company.json');
    writeFileSync(file, JSON.stringify(referenceFile()));
    srv = await startTestServer({
      env: { VACACIONES_TODAY: TODAY },
      beforeStart: async (env) => {
        const r = await runCli(env, ['import', file]);
        expect(r.code, r.stderr).toBe(0);
      },
    });
    c = client(srv.url, srv.keys.acceptance!);
    for (const w of workers) {
      for (const [i, r] of w.model.records.entries()) {
        if (!r.deleted) continue;
        const code = `VAC_1700000000000_${w.id.toString(16).padStart(8, '0')}_${i.toString(16).padStart(8, '0')}`;
        const deleted = await c.post('/api/vacaciones/delete', { codigoPila: code, emailUserResponsable: ADMIN });
        expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      }
    }
  }, 240_000);
  afterAll(async () => {
    await srv?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('consult, the periods and the register on today; calculate and the settlement on another date', async () => {
    let compared = 0;
    for (const w of workers) {
      const q = { numeroDocumento: w.document, emailResponsable: ADMIN };
      const today = shown(modelAvailable(w.model, TODAY));
      const consult = await c.get('/api/vacaciones/consultdatavacations', q);
      if (consult.status === 200 && 'vacacionesDisponibles' in consult.body) {
        expect(consult.body.vacacionesDisponibles, `consult ${w.document}`).toBe(today);
        compared++;
      }
      const periods = await c.get('/api/vacaciones/periodos', q);
      if (periods.status === 200) expect(periods.body.data.totales.diasPendientes, `periods ${w.document}`).toBe(today);
      const book = await c.get('/api/vacaciones/libro', { ...q, formato: 'json' });
      expect(book.status).toBe(200);
      expect(book.body.data.trabajadores[0].totales.diasPendientes, `register ${w.document}`).toBe(today);

      const g = governing(w.model, w.asked);
      if (!g || g.risk === null) continue;
      const calc = await c.post('/api/vacaciones/calculate', vacationForm(w.document, w.asked, 1, { vacPagado: '1', vacCompensado: '1' }));
      expect(calc.status, `calculate ${w.document} ${w.asked}: ${JSON.stringify(calc.body)}`).toBe(200);
      expect(calc.body.data.DiasDisponibles, `calculate ${w.document} ${w.asked}`).toBe(shown(modelAvailable(w.model, w.asked)));
      const settlement = await c.get('/api/vacaciones/liquidacion', { ...q, fechaRetiro: w.asked });
      expect(settlement.status, `settlement ${w.document} ${w.asked}`).toBe(200);
      expect(settlement.body.data.diasPendientes, `settlement ${w.document} ${w.asked}`).toBe(shown(modelSettlement(w.model, w.asked, g)));
      compared++;
    }
    // The sample reaches both kinds of comparison for most workers, never none.
    expect(compared).toBeGreaterThan(workers.length / 2);
  });
});
