import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closureBookedOk, closureChangeOk, closurePreviewOk } from '../../../src/http/response-schemas.ts';
import { feedOk } from '../../../src/http/integration-schemas.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { hasServer, NEEDS_SERVER } from '../../support/db.ts';
import { ADMIN, addVacation, client, vacationForm, type Client } from '../../support/http.ts';
import { servePeople, type Person } from '../../support/people.ts';

const TODAY = '2026-12-02';

const doc = (id: number) => String(90_000_000 + id);
const PEOPLE: Person[] = [
  { id: 2001, unit: 'SG-CIERRE' },
  { id: 2002, unit: 'SG-CIERRE' },
  { id: 2003, unit: 'SG-CIERRE' },
  { id: 2004, unit: 'SG-CIERRE' },
  { id: 2005, unit: 'SG-CIERRE', start: '2026-10-01' },
  { id: 2006, unit: 'SG-CIERRE', end: '2026-12-31' },
  { id: 2007, unit: 'SG-CIERRE' },
  { id: 2008, unit: 'SG-CIERRE', company: 20 },
  { id: 2009, unit: 'SG-OTRA' },
  { id: 2101, unit: 'SG-CANCELA' },
  { id: 2102, unit: 'SG-CANCELA' },
  ...Array.from({ length: 50 }, (_, i) => ({ id: 3000 + i, unit: 'SG-CARRERA' })),
];

const closure = (over: Record<string, string> = {}) => ({
  subgerenciaId: 'SG-CIERRE',
  fechaInicio: '2026-12-21',
  dias: '15',
  emailUserResponsable: ADMIN,
  ...over,
});

describe.skipIf(!hasServer())(`collective closures over HTTP${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let c: Client;
  let feed: Client;
  let stop: () => Promise<void>;

  const recordsOf = async (id: number) => {
    const r = await c.get('/api/vacaciones', { numeroDocumento: doc(id), emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    return (r.body.vacaciones as { codigoPila: string; startDate: string; approved: boolean; status: string }[]).filter(
      (v) => v.status === 'live',
    );
  };

  beforeAll(async () => {
    const served = await servePeople(PEOPLE, TODAY);
    ({ c, stop } = served);
    feed = client(served.url, (await createApiKey(served.t.db, { name: 'nomina-eventos', scopes: ['eventos'] })).key);
    // Worker 2007 already has days booked inside the closure.
    await addVacation(c, vacationForm(doc(2007), '2026-12-28', 6));
  }, 60_000);
  afterAll(async () => stop?.());

  it('previews every worker in scope with the figures calculate gives, and every one left out with the reason, writing nothing', async () => {
    const r = await c.post('/api/vacaciones/colectivas', closure({ vista: 'previa' }));
    expect(r.status, r.text).toBe(200);
    const data = closurePreviewOk.parse(r.body).data;
    expect(data.trabajadores.map((l) => l.vacAsociado)).toEqual([2001, 2002, 2003, 2004, 2005]);
    expect(Object.fromEntries(data.excluidos.map((e) => [e.vacAsociado, e.motivo]))).toEqual({
      2006: 'finContrato',
      2007: 'solapamiento',
      2008: 'sinParametrizacion',
    });
    expect(data.excluidos.find((e) => e.vacAsociado === 2006)!.mensaje).toMatch(/después del fin de su contrato \(2026-12-31\)/);
    // One truth: a line is what calculate says of the same request for that worker.
    // (The new hire takes more in advance than an individual request may: calculate refuses that one.)
    for (const line of data.trabajadores.filter((l) => l.diasAnticipados === 0)) {
      const calc = await c.post('/api/vacaciones/calculate', {
        documentoAsociado: line.documentoAsociado,
        vacFechaInicio: '2026-12-21',
        vacDiasVacaciones: '15',
        vacPagado: '1',
        emailUserResponsable: ADMIN,
      });
      expect(calc.status, calc.text).toBe(200);
      const f = calc.body.data;
      expect([line.vacFechaFinal, line.vacDiasCalendario, line.vacSalario, line.vacValorTotal, line.DiasDisponibles]).toEqual([
        f.vacFechaFinal,
        f.vacDiasCalendario,
        f.vacSalario,
        f.vacValorTotal,
        f.DiasDisponibles,
      ]);
    }
    // The new hire has not accrued 15 days: the employer grants the rest in advance.
    const hire = data.trabajadores.find((l) => l.vacAsociado === 2005)!;
    expect(hire.vacPagado).toBe('1');
    expect(hire.diasAnticipados).toBeCloseTo(15 - hire.DiasDisponibles, 2);
    expect(data.trabajadores.find((l) => l.vacAsociado === 2001)!.vacPagado).toBe('0');
    expect(data.totales).toMatchObject({ trabajadores: 5, excluidos: 3, anticipados: 1 });
    expect(data.totales.valorTotal).toBe(data.trabajadores.reduce((n, l) => n + l.vacValorTotal, 0));
    expect(await recordsOf(2001)).toEqual([]);
    expect((await recordsOf(2007)).map((v) => v.startDate)).toEqual(['2026-12-28']);
  });

  it('books nothing when a worker changed since the preview, and names that worker', async () => {
    const preview = await c.post('/api/vacaciones/colectivas', closure({ vista: 'previa' }));
    expect(preview.status, preview.text).toBe(200);
    const add = await c.post('/api/vacaciones/add', {
      documentoAsociado: doc(2003),
      vacFechaInicio: '2027-03-01',
      vacDiasVacaciones: '6',
      emailUserResponsable: ADMIN,
    });
    expect(add.status, add.text).toBe(201);
    const r = await c.post('/api/vacaciones/colectivas', closure({ huella: preview.body.data.huella }));
    expect(r.status, r.text).toBe(409);
    expect(r.body.errors.trabajadores).toContain(doc(2003));
    expect(r.body.errors.trabajadores).not.toContain(doc(2001));
    expect(await recordsOf(2001)).toEqual([]);
  });

  it('books every worker at once with the preview of now, past the limit of people at once, then approves them together', async () => {
    const preview = await c.post('/api/vacaciones/colectivas', closure({ vista: 'previa' }));
    const r = await c.post('/api/vacaciones/colectivas', closure({ huella: preview.body.data.huella }));
    expect(r.status, r.text).toBe(201);
    const data = closureBookedOk.parse(r.body).data;
    expect(data.idColectiva).toMatch(/^COL_\d+_[0-9a-f]{8}$/);
    expect(data.trabajadores).toHaveLength(5);
    for (const line of data.trabajadores) {
      const records = await recordsOf(line.vacAsociado);
      expect(records.map((x) => x.codigoPila)).toContain(line.vacCodigoPila);
    }
    // The feed shows the closure as one decision, beside each record it booked.
    const events: { type: string; subject: string; data: { codigos?: string[]; codigoPila?: string } }[] = [];
    for (let desde: string | undefined; ;) {
      const page = await feed.get('/api/eventos', desde ? { desde, limite: '1000' } : { limite: '1000' });
      expect(page.status, page.text).toBe(200);
      expect(feedOk.safeParse(page.body).error).toBeUndefined();
      events.push(...page.body.eventos);
      if (page.body.eventos.length === 0) break;
      desde = page.body.siguiente;
    }
    const closures = events.filter((e) => e.type === 'co.vacaciones.colectiva.programada');
    expect(closures.map((e) => e.subject)).toEqual([data.idColectiva]);
    const codes = data.trabajadores.map((l) => l.vacCodigoPila);
    expect(closures[0]!.data.codigos).toEqual(codes);
    const created = events.filter((e) => e.type === 'co.vacaciones.vacacion.creada').map((e) => e.data.codigoPila);
    expect(created).toEqual(expect.arrayContaining(codes));

    // The closure's records fill the places: a worker's own request inside it is refused.
    const again = await c.post('/api/vacaciones/add', {
      documentoAsociado: doc(2001),
      vacFechaInicio: '2026-12-22',
      vacDiasVacaciones: '6',
      emailUserResponsable: ADMIN,
    });
    expect(again.status, again.text).toBe(422);

    const approved = await c.post('/api/vacaciones/colectivas/aprobar', { idColectiva: data.idColectiva, emailUserResponsable: ADMIN });
    expect(approved.status, approved.text).toBe(200);
    expect(closureChangeOk.parse(approved.body).data.registros).toBe(5);
    const one = await c.get(`/api/vacaciones/registro/${data.trabajadores[0]!.vacCodigoPila}`, { emailResponsable: ADMIN });
    expect(one.status, one.text).toBe(200);
    expect(one.body.vacacion.approved).toBe(true);
    // Approved records cannot be cancelled: nothing pending is left to delete.
    const cancel = await c.post('/api/vacaciones/colectivas/cancelar', {
      idColectiva: data.idColectiva,
      motivo: 'Cambio de planes',
      emailUserResponsable: ADMIN,
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.data.registros).toBe(0);
  });

  it('cancels a closure before its start: its pending records are deleted with the reason, and it cannot be approved afterwards', async () => {
    const r = await c.post('/api/vacaciones/colectivas', closure({ subgerenciaId: 'SG-CANCELA', fechaInicio: '2027-01-18', dias: '10' }));
    expect(r.status, r.text).toBe(201);
    const id = r.body.data.idColectiva;
    const cancel = await c.post('/api/vacaciones/colectivas/cancelar', {
      idColectiva: id,
      motivo: 'La tienda abre en enero',
      emailUserResponsable: ADMIN,
    });
    expect(cancel.status, cancel.text).toBe(200);
    expect(cancel.body.data.registros).toBe(2);
    expect(await recordsOf(2101)).toEqual([]);
    const approve = await c.post('/api/vacaciones/colectivas/aprobar', { idColectiva: id, emailUserResponsable: ADMIN });
    expect(approve.status, approve.text).toBe(422);
    const unknown = await c.post('/api/vacaciones/colectivas/aprobar', { idColectiva: 'COL_1_0a1b2c3d', emailUserResponsable: ADMIN });
    expect(unknown.status, unknown.text).toBe(404);
    expect(unknown.body.errors).toHaveProperty('idColectiva');
  });

  it.each([
    ['an unknown subgerencia', { subgerenciaId: 'SG-NADA' }, 404, 'subgerenciaId'],
    ['an unknown company contract', { subgerenciaId: '', contratoEmpresaId: '999' }, 404, 'contratoEmpresaId'],
    ['an empty scope', { subgerenciaId: '' }, 400, 'subgerenciaId'],
    ['days out of range', { dias: '0' }, 400, 'dias'],
    ['a date that is not a date', { fechaInicio: '2026-02-30' }, 400, 'fechaInicio'],
    ['a start that is not a business day', { fechaInicio: '2026-12-26' }, 422, 'fechaInicio'],
    ['a closure shorter than the minimum', { dias: '3' }, 422, 'dias'],
  ])('refuses %s naming the parameter, writing nothing', async (_what, over, status, field) => {
    const form: Record<string, string> = closure(over);
    for (const [k, v] of Object.entries(form)) if (v === '') delete form[k];
    const before = await recordsOf(2002);
    const r = await c.post('/api/vacaciones/colectivas', form);
    expect(r.status, r.text).toBe(status);
    expect(r.body.success).toBe(false);
    expect(r.body.errors).toHaveProperty(field);
    expect(await recordsOf(2002)).toEqual(before);
  });

  it('books no closure that would leave everyone out, and asks a cancellation for its reason in words', async () => {
    const office = closure({ subgerenciaId: 'SG-OTRA', fechaInicio: '2027-03-01', dias: '6' });
    const first = await c.post('/api/vacaciones/colectivas', office);
    expect(first.status, first.text).toBe(201);
    // Its only worker is away then already: the preview says so, and a booking is refused.
    const preview = await c.post('/api/vacaciones/colectivas', { ...office, vista: 'previa' });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.data.excluidos.map((e: { motivo: string }) => e.motivo)).toEqual(['solapamiento']);
    const again = await c.post('/api/vacaciones/colectivas', office);
    expect(again.status, again.text).toBe(422);
    expect(again.body.errors.subgerenciaId).toMatch(/quedan por fuera/);
    const short = await c.post('/api/vacaciones/colectivas/cancelar', {
      idColectiva: first.body.data.idColectiva,
      motivo: 'no',
      emailUserResponsable: ADMIN,
    });
    expect(short.status, short.text).toBe(400);
    expect(short.body.errors.motivo).toBe('motivo debe tener entre 3 y 500 caracteres');
    expect(await recordsOf(2009)).toHaveLength(1);
  });

  it('never books both a closure and a racing individual request for the same worker', async () => {
    const racers = PEOPLE.filter((p) => p.unit === 'SG-CARRERA');
    const booking = c.post('/api/vacaciones/colectivas', closure({ subgerenciaId: 'SG-CARRERA', fechaInicio: '2027-02-01', dias: '6' }));
    const adds = racers.map((p) =>
      c.post('/api/vacaciones/add', {
        documentoAsociado: doc(p.id),
        vacFechaInicio: '2027-02-02',
        vacDiasVacaciones: '6',
        emailUserResponsable: ADMIN,
      }),
    );
    const [b, ...a] = await Promise.all([booking, ...adds]);
    expect([201, 503], b.text).toContain(b.status);
    for (const x of a) expect([201, 422], x.text).toContain(x.status);
    const closed = new Set<number>(b.status === 201 ? b.body.data.trabajadores.map((l: { vacAsociado: number }) => l.vacAsociado) : []);
    for (const p of racers) {
      const live = (await recordsOf(p.id)).filter((x) => x.startDate >= '2027-01-01');
      // One booking a worker: the closure's or their own, never both.
      expect(live.length, `worker ${p.id}`).toBeLessThanOrEqual(1);
      if (closed.has(p.id)) expect(live).toHaveLength(1);
    }
    // The limit of 2 people at once held for the individual requests among themselves, and a
    // booked closure took everyone whose own request had not landed first.
    const individual = a.filter((x) => x.status === 201).length;
    expect(individual).toBeLessThanOrEqual(2);
    if (b.status === 201) expect(individual + closed.size).toBe(racers.length);
  }, 60_000);
});

// The embedded database is what a fresh install runs on: the closure's one multi-stream append,
// its read model and its approval hold there as on PostgreSQL.
describe('collective closures on the embedded PGlite', () => {
  let c: Client;
  let stop: () => Promise<void>;
  const ON_PGLITE: Person[] = [
    { id: 2001, unit: 'SG-CIERRE' },
    { id: 2002, unit: 'SG-CIERRE' },
    { id: 2003, unit: 'SG-CIERRE' },
    { id: 2006, unit: 'SG-CIERRE', end: '2026-12-31' },
  ];

  beforeAll(async () => {
    ({ c, stop } = await servePeople(ON_PGLITE, TODAY, undefined, { embedded: true }));
  }, 120_000);
  afterAll(async () => stop?.());

  it('previews, books all at once and approves together, each record then live and approved', async () => {
    const preview = await c.post('/api/vacaciones/colectivas', closure({ vista: 'previa' }));
    expect(preview.status, preview.text).toBe(200);
    const seen = closurePreviewOk.parse(preview.body).data;
    expect(seen.trabajadores.map((l) => l.vacAsociado)).toEqual([2001, 2002, 2003]);
    expect(seen.excluidos.map((e) => [e.vacAsociado, e.motivo])).toEqual([[2006, 'finContrato']]);
    const booked = await c.post('/api/vacaciones/colectivas', closure({ huella: seen.huella }));
    expect(booked.status, booked.text).toBe(201);
    const { idColectiva, trabajadores } = closureBookedOk.parse(booked.body).data;
    expect(trabajadores).toHaveLength(3);
    const approved = await c.post('/api/vacaciones/colectivas/aprobar', { idColectiva, emailUserResponsable: ADMIN });
    expect(approved.status, approved.text).toBe(200);
    expect(closureChangeOk.parse(approved.body).data.codigos.sort()).toEqual(trabajadores.map((l) => l.vacCodigoPila).sort());
    for (const line of trabajadores) {
      const r = await c.get('/api/vacaciones', { numeroDocumento: line.documentoAsociado, emailResponsable: ADMIN });
      expect(r.status, r.text).toBe(200);
      const live = (r.body.vacaciones as { codigoPila: string; approved: boolean; status: string }[]).filter((v) => v.status === 'live');
      expect(live).toEqual([expect.objectContaining({ codigoPila: line.vacCodigoPila, approved: true })]);
    }
  });
});
