import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planBookedOk, planOk } from '../../../src/http/response-schemas.ts';
import { hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, addVacation, vacationForm, type Client } from '../../support/http.ts';
import { servePeople, type Person } from '../../support/people.ts';

const TODAY = '2026-12-02';
const doc = (id: number) => String(90_000_000 + id);
const idOf = (document: string) => Number(document) - 90_000_000;

// Every unit is under company contract 10: at most 2 people away at once, at least 6 days.
const UNITS = [
  { id: 'SG-TODO', nombre: 'Planta' },
  { id: 'SG-MALA', nombre: 'Bodega' },
  { id: 'SG-DOBLE', nombre: 'Oficina' },
  { id: 'SG-CARRERA', nombre: 'Tienda' },
];
const group = (unit: string, from: number, n: number, start = '2024-06-01'): Person[] =>
  Array.from({ length: n }, (_, i) => ({ id: from + i, unit, start }));
const PEOPLE: Person[] = [
  // Days that prescribe in 2027 beside workers who owe two periods and a half.
  ...group('SG-TODO', 6001, 2, '2021-12-01'),
  ...group('SG-TODO', 6010, 6),
  ...group('SG-MALA', 6100, 5),
  ...group('SG-DOBLE', 6200, 2),
  ...group('SG-CARRERA', 6300, 22),
];

interface Line {
  documentoAsociado: string;
  vacFechaInicio: string;
  vacFechaFinal: string;
  vacDiasVacaciones: number;
}

const asLines = (lines: Line[]) =>
  lines.map((l) => ({
    numeroDocumento: l.documentoAsociado,
    vacFechaInicio: l.vacFechaInicio,
    vacDiasVacaciones: String(l.vacDiasVacaciones),
  }));

/** The most people of these spans away on any one calendar day of 2027, and the first such day. */
function mostAtOnce(spans: { startDate: string; endDate: string }[]): { day: string; people: number } {
  let most = { day: '', people: 0 };
  for (let d = new Date('2027-01-01T00:00:00Z'); d <= new Date('2027-12-31T00:00:00Z'); d.setUTCDate(d.getUTCDate() + 1)) {
    const day = d.toISOString().slice(0, 10);
    const people = spans.filter((s) => s.startDate <= day && day <= s.endDate).length;
    if (people > most.people) most = { day, people };
  }
  return most;
}

describe.skipIf(!hasServer())(`POST /api/vacaciones/plan/reservar${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let c: Client;
  let t: TestDb;
  let stop: () => Promise<void>;
  const planOf = async (unit: string) => {
    const r = await c.get('/api/vacaciones/plan', { emailResponsable: ADMIN, anio: '2027', subgerenciaId: unit });
    expect(r.status, r.text).toBe(200);
    return planOk.parse(r.body).data.lineas as Line[];
  };
  const book = (lineas: unknown, o: { email?: string } = {}) =>
    c.call('/api/vacaciones/plan/reservar', { json: { emailUserResponsable: o.email ?? ADMIN, lineas } });
  const liveOf = async (id: number) => {
    const r = await c.get('/api/vacaciones', { numeroDocumento: doc(id), emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    return (r.body.vacaciones as { codigoPila: string; startDate: string; endDate: string; status: string }[]).filter(
      (v) => v.status === 'live',
    );
  };
  const head = async () => Number((await t.db.query<{ p: string }>('SELECT coalesce(max(position), 0)::text AS p FROM events')).rows[0]!.p);

  beforeAll(async () => {
    ({ c, t, stop } = await servePeople(PEOPLE, TODAY, UNITS));
    // A booking already in the year holds one of SG-TODO's two places.
    await addVacation(c, vacationForm(doc(6015), '2027-03-01', 10));
  }, 60_000);
  afterAll(async () => stop?.());

  it('books every line of the plan GET /plan proposes, each one a record an overlapping request then meets, never over the limit', async () => {
    const lines = await planOf('SG-TODO');
    expect(lines.length).toBeGreaterThanOrEqual(6);
    const r = await book(asLines(lines));
    expect(r.status, r.text).toBe(201);
    const data = planBookedOk.parse(r.body).data;
    expect(data.registros.map((x) => [x.numeroDocumento, x.vacFechaInicio, x.vacFechaFinal, x.vacDiasVacaciones])).toEqual(
      lines.map((l) => [l.documentoAsociado, l.vacFechaInicio, l.vacFechaFinal, l.vacDiasVacaciones]),
    );
    // From 2 December, no line of 2027 is within the 15 days' notice.
    expect(data.avisos).toBeUndefined();
    for (const [i, l] of lines.entries()) {
      const live = await liveOf(idOf(l.documentoAsociado));
      expect(live.map((v) => v.codigoPila)).toContain(data.registros[i]!.vacCodigoPila);
      const again = await c.post('/api/vacaciones/calculate', vacationForm(l.documentoAsociado, l.vacFechaInicio, 6));
      expect(again.status, again.text).toBe(422);
      expect(again.body.errors).toContain(
        `Las fechas se cruzan con otras vacaciones del trabajador (${data.registros[i]!.vacCodigoPila}, del ${l.vacFechaInicio} al ${l.vacFechaFinal})`,
      );
    }
    const spans = (await Promise.all(PEOPLE.filter((p) => p.unit === 'SG-TODO').map((p) => liveOf(p.id)))).flat();
    expect(spans.length).toBe(lines.length + 1);
    expect(mostAtOnce(spans).people).toBeLessThanOrEqual(2);
  });

  it('refuses a plan with a line on a holiday and one overlapping a booking, naming both lines, and writes nothing', async () => {
    const lines = asLines(await planOf('SG-MALA'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    // HR moves the first line to Reyes (11 January 2027, a Monday holiday); the third worker books on their own meanwhile.
    lines[0] = { ...lines[0]!, vacFechaInicio: '2027-01-11' };
    const third = lines[2]!;
    await addVacation(c, vacationForm(third.numeroDocumento, third.vacFechaInicio, 6));
    const before = await head();
    const r = await book(lines);
    expect(r.status, r.text).toBe(422);
    expect(r.body.success).toBe(false);
    expect(r.body.message).toBe('No se puede reservar el plan');
    expect(Object.keys(r.body.errors)).toEqual(['lineas[0]', 'lineas[2]']);
    expect(r.body.errors['lineas[0]']).toMatch(
      new RegExp(`^${lines[0]!.numeroDocumento}: .*La fecha de inicio 2027-01-11 no es un día hábil`),
    );
    expect(r.body.errors['lineas[2]']).toMatch(new RegExp(`^${third.numeroDocumento}: .*Las fechas se cruzan con otras vacaciones`));
    expect(await head()).toBe(before);
    for (const l of lines) expect((await liveOf(idOf(l.numeroDocumento))).length, l.numeroDocumento).toBe(l === third ? 1 : 0);
  });

  it('refuses two lines for one worker, an unknown responsible and malformed lines before anything is judged; a form sends the list as JSON text', async () => {
    const lines = asLines(await planOf('SG-DOBLE'));
    expect(lines.length).toBe(2);
    const twice = await book([lines[0], { ...lines[0]!, vacFechaInicio: '2027-11-02' }]);
    expect(twice.status, twice.text).toBe(400);
    expect(twice.body.message).toBe('Datos requeridos faltantes');
    expect(twice.body.errors['lineas[1]']).toContain('lineas[0]');

    const nobody = await book(lines, { email: 'nadie@empresa.co' });
    expect(nobody.status, nobody.text).toBe(404);
    expect(nobody.body.errors).toHaveProperty('emailUserResponsable');

    const bad = await book([
      lines[0],
      { numeroDocumento: lines[1]!.numeroDocumento, vacFechaInicio: '2027-02-30', vacDiasVacaciones: '0' },
    ]);
    expect(bad.status, bad.text).toBe(400);
    expect(Object.keys(bad.body.errors)).toEqual(['lineas[1].vacFechaInicio', 'lineas[1].vacDiasVacaciones']);
    for (const lineas of [[], 'no es una lista', undefined, [7]]) {
      const r = await book(lineas);
      expect(r.status, r.text).toBe(400);
      expect(Object.keys(r.body.errors).join(), JSON.stringify(lineas)).toMatch(/^lineas/);
    }
    for (const l of lines) expect(await liveOf(idOf(l.numeroDocumento))).toEqual([]);

    const send = () =>
      c.post(
        '/api/vacaciones/plan/reservar',
        { emailUserResponsable: ADMIN, lineas: JSON.stringify(lines) },
        { headers: { 'idempotency-key': 'plan-sg-doble' } },
      );
    const form = await send();
    expect(form.status, form.text).toBe(201);
    expect(form.body.data.registros).toHaveLength(2);
    // Sent again under its key, the answer is the first one's, and nothing more is booked.
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(form.body);
    for (const l of lines) expect(await liveOf(idOf(l.numeroDocumento))).toHaveLength(1);
  });

  it('never lets the plan and 20 racing individual requests of its subgerencia both take the last places of a day', async () => {
    const racers = PEOPLE.filter((p) => p.unit === 'SG-CARRERA');
    const lines = await planOf('SG-CARRERA');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const first = [...lines].sort((a, b) => (a.vacFechaInicio < b.vacFechaInicio ? -1 : 1))[0]!;
    const booking = book(asLines(lines));
    const adds = racers.slice(0, 20).map((p) => c.post('/api/vacaciones/add', vacationForm(doc(p.id), first.vacFechaInicio, 6)));
    const [b, ...a] = await Promise.all([booking, ...adds]);
    expect([201, 422, 503], b.text).toContain(b.status);
    for (const x of a) expect([201, 422], x.text).toContain(x.status);
    const spans = (await Promise.all(racers.map((p) => liveOf(p.id)))).flat();
    expect(mostAtOnce(spans).people, JSON.stringify(mostAtOnce(spans))).toBeLessThanOrEqual(2);
    // All or nothing: every line of a booked plan is there beside the adds that won, or only those adds.
    const individual = a.filter((x) => x.status === 201).length;
    expect(individual).toBeLessThanOrEqual(2);
    expect(spans.length).toBe(individual + (b.status === 201 ? lines.length : 0));
  }, 60_000);
});
