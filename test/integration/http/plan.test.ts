import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HolidayCalendar, endDate } from '../../../src/domain/index.ts';
import { planOk } from '../../../src/http/response-schemas.ts';
import { hasServer, NEEDS_SERVER } from '../../support/db.ts';
import { ADMIN, addVacation, vacationForm, type Client } from '../../support/http.ts';
import { servePeople, type Person } from '../../support/people.ts';

const TODAY = '2026-12-02';
const doc = (id: number) => String(90_000_000 + id);

// A crowded plant (limit 2 at once, minimum 6), and an office whose company contract sets no rules.
const PEOPLE: Person[] = [
  // Earned 2022, 2023, 2024, 2025: the oldest pending days prescribe in 2027.
  { id: 5001, unit: 'SG-PLANTA', start: '2021-12-01' },
  { id: 5002, unit: 'SG-PLANTA', start: '2021-12-01' },
  ...Array.from({ length: 14 }, (_, i) => ({ id: 5010 + i, unit: 'SG-PLANTA', start: '2024-06-01' })),
  // Hired this year: nothing to take until the first period is earned, in 2027.
  { id: 5030, unit: 'SG-PLANTA', start: '2026-05-01' },
  { id: 5031, unit: 'SG-PLANTA', start: '2026-10-01' },
  // The contract ends before the days can be taken.
  { id: 5040, unit: 'SG-PLANTA', start: '2024-06-01', end: '2027-01-08' },
  { id: 5050, unit: 'SG-OFICINA', company: 20 },
];
const UNITS = [
  { id: 'SG-PLANTA', nombre: 'Planta' },
  { id: 'SG-OFICINA', nombre: 'Oficina' },
];

interface Line {
  vacAsociado: number;
  documentoAsociado: string;
  vacFechaInicio: string;
  vacFechaFinal: string;
  vacDiasVacaciones: number;
  necesidad: string;
  diasCausadosDesde: string | null;
}

/** The plan's line as calculate judges the same request. */
const calculateLine = (c: Client, l: Line) =>
  c.post('/api/vacaciones/calculate', {
    documentoAsociado: l.documentoAsociado,
    vacFechaInicio: l.vacFechaInicio,
    vacDiasVacaciones: String(l.vacDiasVacaciones),
    emailUserResponsable: ADMIN,
  });

describe.skipIf(!hasServer())(`GET /api/vacaciones/plan${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let c: Client;
  let stop: () => Promise<void>;
  const plan = (query: Record<string, string>) => c.get('/api/vacaciones/plan', { emailResponsable: ADMIN, ...query });

  beforeAll(async () => {
    ({ c, stop } = await servePeople(PEOPLE, TODAY, UNITS));
    // A booking already in the year occupies one of the two places for its days.
    await addVacation(c, vacationForm(doc(5010), '2027-03-01', 10));
  }, 60_000);
  afterAll(async () => stop?.());

  it('proposes a line for every worker who owes days, each one a booking calculate accepts, never more than the limit away', async () => {
    const r = await plan({ anio: '2027', subgerenciaId: 'SG-PLANTA' });
    expect(r.status, r.text).toBe(200);
    const data = planOk.parse(r.body).data;
    const lines = data.lineas as Line[];
    // The 15 days' notice of art. 187 from 2 Dec 2026 is before the year: the plan starts on 1 Jan.
    expect(data.desde).toBe('2027-01-01');
    // Those whose days prescribe come first in the year.
    const first = [...lines].sort((a, b) => (a.vacFechaInicio < b.vacFechaInicio ? -1 : 1))[0]!;
    expect(first.necesidad).toBe('prescribe');
    expect(lines.find((l) => l.vacAsociado === 5001)!.necesidad).toBe('prescribe');
    expect(lines.find((l) => l.vacAsociado === 5002)!.necesidad).toBe('prescribe');
    expect(data.totales.diasQuePrescribenSinColocar).toBe(0);
    // The worker with a booking in the year is not proposed twice over the same days.
    for (const l of lines) {
      const calc = await calculateLine(c, l);
      if (l.vacAsociado === 5031) {
        // Days earned only in September 2027: today's payroll does not hold them yet, and nothing else is wrong.
        expect(calc.status, calc.text).toBe(422);
        expect(calc.body.errors).toEqual([expect.stringMatching(/superan los días disponibles/)]);
        // The line says so: it can be booked once the period is earned, from the day it names.
        expect(l.diasCausadosDesde).toMatch(/^2027-/);
        expect(l.vacFechaInicio >= l.diasCausadosDesde!).toBe(true);
        expect(l.vacFechaFinal).toBe(endDate(l.vacFechaInicio, l.vacDiasVacaciones, false, new HolidayCalendar()));
        continue;
      }
      // One truth: the line ends where calculate says, and breaks none of its rules taken alone.
      expect(calc.status, `${l.vacAsociado} ${l.vacFechaInicio}: ${calc.text}`).toBe(200);
      expect(l.diasCausadosDesde).toBeNull();
      expect(calc.body.data.vacFechaFinal).toBe(l.vacFechaFinal);
      expect(l.vacDiasVacaciones).toBeGreaterThanOrEqual(6);
    }
    // Never more than 2 people away on any day, counting the booking already made.
    const spans = [...lines.map((l) => [l.vacFechaInicio, l.vacFechaFinal]), ['2027-03-01', '2027-03-12']];
    for (let d = new Date('2027-01-01T00:00:00Z'); d <= new Date('2027-12-31T00:00:00Z'); d.setUTCDate(d.getUTCDate() + 1)) {
      const day = d.toISOString().slice(0, 10);
      expect(spans.filter(([a, b]) => a! <= day && day <= b!).length, day).toBeLessThanOrEqual(2);
    }
    // A hire with fewer days than the minimum takes the first period once it is earned (in September 2027).
    const hire = lines.find((l) => l.vacAsociado === 5031);
    expect(hire, JSON.stringify(data.sinColocar)).toBeDefined();
    expect(hire!.vacFechaInicio > '2027-09-20').toBe(true);
    expect(hire!.vacDiasVacaciones).toBeGreaterThanOrEqual(15);
    // Spread over the year, not piled on January.
    expect(new Set(lines.map((l) => l.vacFechaInicio.slice(5, 7))).size).toBeGreaterThanOrEqual(6);
    const left = Object.fromEntries(data.sinColocar.map((x) => [x.vacAsociado, x]));
    expect(left[5040]?.motivo).toBe('finContrato');
    expect(left[5040]?.mensaje).toContain('2027-01-08');
    expect(data.totales.colocados).toBe(lines.length);
    expect(data.totales.sinColocar).toBe(data.sinColocar.length);
    expect(lines.length + data.sinColocar.length).toBe(19);
  });

  it('is the same plan when asked again', async () => {
    const [a, b] = await Promise.all([plan({ anio: '2027' }), plan({ anio: '2027' })]);
    expect(a.status, a.text).toBe(200);
    expect(a.body.data).toEqual(b.body.data);
    const office = a.body.data.sinColocar.find((x: { vacAsociado: number }) => x.vacAsociado === 5050);
    expect(office?.motivo).toBe('sinParametrizacion');
  });

  it.each([
    ['a year that is not a year', { anio: '27' }, 400, 'anio'],
    ['a year already gone', { anio: '2025' }, 422, 'anio'],
    ['an unknown subgerencia', { anio: '2027', subgerenciaId: 'SG-NADA' }, 404, 'subgerenciaId'],
    ['an unknown responsible', { anio: '2027', emailResponsable: 'nadie@empresa.co' }, 404, 'emailResponsable'],
  ])('refuses %s naming the parameter', async (_what, query, status, field) => {
    const r = await plan(query);
    expect(r.status, r.text).toBe(status);
    expect(r.body.success).toBe(false);
    expect(r.body.errors).toHaveProperty(field);
  });
});

// A fresh install runs on the embedded PGlite: the plan reads the same read models there.
describe('GET /api/vacaciones/plan on the embedded PGlite', () => {
  let c: Client;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    ({ c, stop } = await servePeople(PEOPLE.slice(0, 6), TODAY, UNITS, { embedded: true }));
  }, 120_000);
  afterAll(async () => stop?.());

  it('proposes the same kind of plan: the prescribing first, every line a booking calculate accepts, the same plan twice', async () => {
    const query = { emailResponsable: ADMIN, anio: '2027', subgerenciaId: 'SG-PLANTA' };
    const r = await c.get('/api/vacaciones/plan', query);
    expect(r.status, r.text).toBe(200);
    const lines = planOk.parse(r.body).data.lineas as Line[];
    expect(lines.map((l) => l.vacAsociado).sort()).toEqual([5001, 5002, 5010, 5011, 5012, 5013]);
    expect(
      lines
        .filter((l) => l.necesidad === 'prescribe')
        .map((l) => l.vacAsociado)
        .sort(),
    ).toEqual([5001, 5002]);
    for (const l of lines) {
      const calc = await calculateLine(c, l);
      expect(calc.status, `${l.vacAsociado} ${l.vacFechaInicio}: ${calc.text}`).toBe(200);
      expect(calc.body.data.vacFechaFinal).toBe(l.vacFechaFinal);
    }
    expect((await c.get('/api/vacaciones/plan', query)).body).toEqual(r.body);
  });
});
