import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentOf, generateDataset } from '../support/dataset.ts';
import { ADMIN, CODE_RE, client, vacationForm, type Answer, type Client } from '../support/http.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

/**
 * Races over HTTP against the real server process. On PGlite the server is still one process
 * serving many requests at once, so every race here is meaningful on both backends.
 */

const FIRST = 100_000;
const WORKERS = 60;
const dataset = generateDataset({ workers: WORKERS, maxPeople: 2, firstWorkerId: FIRST });
const doc = (i: number) => documentOf(FIRST + i);

const M = {
  cannotProcess: 'No se pueden procesar las vacaciones',
  recordNotFound: 'Registro de vacaciones no encontrado',
};

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startTestServer({ beforeStart: async (env) => void (await importThroughCli(env, dataset)) });
  c = client(srv.url, srv.keys.acceptance!);
});
afterAll(async () => {
  await srv?.stop();
});

const describeAnswer = (a: Answer) => `${a.status} ${a.text}`;

function expectNo5xx(answers: Answer[]): void {
  const server = answers.filter((a) => a.status >= 500);
  expect(server.map(describeAnswer)).toEqual([]);
}

async function liveCodes(document: string): Promise<string[]> {
  const r = await c.get('/api/vacaciones', { numeroDocumento: document, emailResponsable: ADMIN });
  expect(r.status, r.text).toBe(200);
  return (r.body.vacaciones as Record<string, unknown>[]).map((v) => String(v.codigoPila));
}

describe('the people-at-once limit under 50 simultaneous bookings', () => {
  it('lets exactly 2 of 50 workers of a subgerencia limited to 2 book the same dates', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => c.post('/api/vacaciones/add', vacationForm(doc(i), '2026-12-01', 6))),
    );
    expectNo5xx(answers);
    const created = answers.filter((a) => a.status === 201);
    const refused = answers.filter((a) => a.status !== 201);
    expect(created).toHaveLength(2);
    expect(refused).toHaveLength(48);
    for (const a of created) expect(a.body.data.codigo_pila).toMatch(CODE_RE);
    for (const a of refused) {
      expect({ status: a.status, body: a.body }).toMatchObject({
        status: 422,
        body: { success: false, statusCode: 422, message: M.cannotProcess },
      });
      expect(Array.isArray(a.body.errors), a.text).toBe(true);
      expect(
        (a.body.errors as string[]).some((e) => e.includes('Se alcanzó el máximo de 2 personas')),
        a.text,
      ).toBe(true);
    }
    // The read side agrees with the answers: the two winners have one live record each, nobody else any.
    const winners = new Set(created.map((a) => a.body.data.vacaciones.vacAsociado as number));
    const lists = await Promise.all(Array.from({ length: 50 }, (_, i) => liveCodes(doc(i))));
    lists.forEach((codes, i) => expect(codes, doc(i)).toHaveLength(winners.has(FIRST + i) ? 1 : 0));
  });
});

describe('one worker, 30 overlapping requests at once', () => {
  it('books exactly one and refuses the rest as overlapping', async () => {
    const d = doc(50);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => c.post('/api/vacaciones/add', vacationForm(d, '2027-02-02', 6 + (i % 5)))),
    );
    expectNo5xx(answers);
    const created = answers.filter((a) => a.status === 201);
    expect(created.map(describeAnswer)).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(29);
    for (const a of refused) {
      expect({ status: a.status, body: a.body }).toMatchObject({
        status: 422,
        body: { success: false, statusCode: 422, message: M.cannotProcess },
      });
      expect(
        (a.body.errors as string[]).some((e) => e.includes('se cruzan')),
        a.text,
      ).toBe(true);
    }
    expect(await liveCodes(d)).toEqual([created[0]!.body.data.codigo_pila]);
  });
});

describe('edit and delete of the same record at once', () => {
  // One worker and one month per round, so that the subgerencia limit never takes part.
  const ROUNDS = [
    { worker: 51, start: '2027-04-06', edited: '2027-04-20' },
    { worker: 52, start: '2027-05-04', edited: '2027-05-18' },
    { worker: 53, start: '2027-06-01', edited: '2027-06-15' },
    { worker: 54, start: '2027-07-06', edited: '2027-07-13' },
    { worker: 55, start: '2027-09-07', edited: '2027-09-21' },
  ];

  it.each(ROUNDS)('exactly one wins on worker $worker and the read side shows the winner', async ({ worker, start, edited }) => {
    const d = doc(worker);
    const created = await c.post('/api/vacaciones/add', vacationForm(d, start, 6));
    expect(created.status, created.text).toBe(201);
    const code = created.body.data.codigo_pila as string;

    const [edit, del] = await Promise.all([
      c.post('/api/vacaciones/edit', { codigoPila: code, ...vacationForm(d, edited, 7) }),
      c.post('/api/vacaciones/delete', { codigoPila: code, emailUserResponsable: ADMIN }),
    ]);
    expectNo5xx([edit, del]);
    const winners = [edit, del].filter((a) => a.status === 200);
    expect(winners.map(describeAnswer), `edit: ${describeAnswer(edit)}\ndelete: ${describeAnswer(del)}`).toHaveLength(1);
    const loser = edit.status === 200 ? del : edit;
    expect({ status: loser.status, body: loser.body }).toMatchObject({
      status: 404,
      body: { success: false, statusCode: 404, message: M.recordNotFound },
    });

    const live = await liveCodes(d);
    if (edit.status === 200) {
      const replacement = edit.body.data.codigoPilaNuevo as string;
      expect(replacement).toMatch(CODE_RE);
      expect(live).toEqual([replacement]);
      const one = await c.get(`/api/vacaciones/registro/${replacement}`, { emailResponsable: ADMIN });
      expect(one.status, one.text).toBe(200);
    } else {
      expect(del.body.data).toMatchObject({ codigoPila: code });
      expect(live).toEqual([]);
    }
    expect(live).not.toContain(code);
  });
});

describe('10 simultaneous retries with one Idempotency-Key', () => {
  it('all get the one 201 body and one record exists', async () => {
    const d = doc(56);
    const form = vacationForm(d, '2027-10-05', 6);
    const headers = { 'Idempotency-Key': 'confiabilidad-idem-1' };
    const first = await Promise.all(Array.from({ length: 10 }, () => c.post('/api/vacaciones/add', form, { headers })));
    expectNo5xx(first);
    const created = first.filter((a) => a.status === 201);
    expect(created.length, first.map(describeAnswer).join('\n')).toBeGreaterThan(0);
    const body = created[0]!.body;
    expect(body.data.codigo_pila).toMatch(CODE_RE);
    for (const a of first) {
      if (a.status === 201) expect(a.body).toEqual(body);
      else {
        expect({ status: a.status, body: a.body }).toMatchObject({
          status: 409,
          body: { success: false, statusCode: 409, message: expect.stringMatching(/^Solicitud en curso/) },
        });
      }
    }
    // Anyone told "in flight" gets the same answer on a later retry.
    for (let i = 0; i < first.filter((a) => a.status === 409).length; i++) {
      const again = await c.post('/api/vacaciones/add', form, { headers });
      expect(again.status, again.text).toBe(201);
      expect(again.body).toEqual(body);
    }
    expect(await liveCodes(d)).toEqual([body.data.codigo_pila]);
  });
});
