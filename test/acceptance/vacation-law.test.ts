import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, W, addVacation, client, expectErrorList, expectVacationError, vacationForm, type Client } from '../support/http.ts';
import { LIMITED, lawData } from '../support/law-data.ts';
import { importThroughCli } from '../support/reliability-server.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let srv: TestServer;
let c: Client;

beforeAll(async () => {
  srv = await startTestServer({ beforeStart: async (env) => void (await importThroughCli(env, lawData())) });
  c = client(srv.url, srv.keys.acceptance!);
});
afterAll(async () => {
  await srv?.stop();
});

const HALF_OF_PERIOD_1 = (days: string) =>
  `Los días compensados en dinero (${days}) superarían la mitad de los 15 días del período 1 del contrato ${LIMITED.contractId} (desde 2024-02-01): mientras el contrato esté vigente solo puede pagarse en dinero hasta la mitad de cada período`;

describe('limit on days paid in money (limiteCompensacion "mitad")', () => {
  const money = (doc: string, start: string, days: number) => vacationForm(doc, start, days, { vacCompensado: '1' });

  it('refuses more than half of a period in money, listed beside the other broken rules, and stores nothing', async () => {
    const r = await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-01-04', 10));
    const errors = expectErrorList(expectVacationError(r, 422, 'No se pueden procesar las vacaciones'));
    expect(errors).toEqual(['La fecha de inicio 2026-01-04 no es un día hábil para el trabajador', HALF_OF_PERIOD_1('10')]);

    const add = await c.post('/api/vacaciones/add', money(LIMITED.document, '2026-01-05', 10));
    expect(expectVacationError(add, 422, 'No se pueden procesar las vacaciones')).toEqual([HALF_OF_PERIOD_1('10')]);
    const list = await c.get('/api/vacaciones', { numeroDocumento: LIMITED.document, emailResponsable: ADMIN });
    expect(list.body.vacaciones).toEqual([]);
  });

  it('accepts up to half, then counts what was paid before', async () => {
    const ok = await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-01-05', 7));
    expect(ok.status, ok.text).toBe(200);
    await addVacation(c, money(LIMITED.document, '2026-01-05', 7));
    const more = await c.post('/api/vacaciones/calculate', money(LIMITED.document, '2026-02-02', 1));
    expect(expectVacationError(more, 422, 'No se pueden procesar las vacaciones')).toEqual([HALF_OF_PERIOD_1('8')]);
    // Enjoyed days are not limited: they fill the rest of the first period.
    const enjoyed = await c.post('/api/vacaciones/calculate', vacationForm(LIMITED.document, '2026-02-02', 8));
    expect(enjoyed.status, enjoyed.text).toBe(200);
  });

  it('leaves a company contract without the parameter as it was', async () => {
    const r = await c.post('/api/vacaciones/calculate', money(W.maria, '2026-01-05', 10));
    expect(r.status, r.text).toBe(200);
  });
});
