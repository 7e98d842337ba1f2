import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { FEED_MESSAGES } from '../../../src/http/routes/feed.ts';
import { feedOk } from '../../../src/http/integration-schemas.ts';
import * as R from '../../../src/http/response-schemas.ts';
import { cursorKeyOf, cursorOf, logTag } from '../../../src/integration/feed.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { openEventStore } from '../../../src/store/open.ts';
import { START } from '../../../src/store/types.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, addVacation, client, vacationForm, type Client, type Json } from '../../support/http.ts';
import { loadFixture } from '../../support/server.ts';

const vacationView = R.recordOk.shape.vacacion;

describe.skipIf(!hasServer())(`GET /api/eventos${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let other: TestDb;
  let service: Service;
  let c: Client;
  let plain: Client;
  const codes: Record<string, string> = {};

  const feed = (query: Record<string, string> = {}) => c.get('/api/eventos', query);
  const ok = async (query: Record<string, string> = {}) => {
    const r = await feed(query);
    expect(r.status, r.text).toBe(200);
    expect(feedOk.safeParse(r.body).error).toBeUndefined();
    return r.body as { eventos: Json[]; siguiente: string };
  };
  const post = async (path: string, form: Record<string, string>) => {
    const r = await plain.post(path, { emailUserResponsable: ADMIN, ...form });
    expect(r.status, r.text).toBe(200);
    return r.body.data;
  };

  beforeAll(async () => {
    [t, other] = await Promise.all([freshDb(), freshDb()]);
    const data = loadFixture();
    for (const k of data.contratosEmpresa) if (k.vacaciones) k.vacaciones.numeroPersonasVacaciones = null;
    await importReferenceData(t.db, data);
    const feedKey = (await createApiKey(t.db, { name: 'nomina-eventos', scopes: ['eventos'] })).key;
    const key = (await createApiKey(t.db, { name: 'nomina' })).key;
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'silent', PORT: '0' });
    service = await createService(config, createLogger(config));
    const url = await service.app.listen({ port: 0, host: '127.0.0.1' });
    c = client(url, feedKey);
    plain = client(url, key);
    codes.approved = (await addVacation(plain, vacationForm(W.maria, '2026-12-01', 6))).codigo_pila;
    await post('/api/vacaciones/approve', { codigoPila: codes.approved });
    codes.deleted = (await addVacation(plain, vacationForm(W.luisa, '2026-12-07', 6))).codigo_pila;
    await post('/api/vacaciones/delete', { codigoPila: codes.deleted });
    codes.old = (await addVacation(plain, vacationForm(W.camilo, '2026-12-07', 6))).codigo_pila;
    codes.edited = (
      await post('/api/vacaciones/edit', { codigoPila: codes.old, ...vacationForm(W.camilo, '2026-12-09', 7) })
    ).codigoPilaNuevo;
    codes.cut = (await addVacation(plain, vacationForm(W.juan, '2026-11-17', 15))).codigo_pila;
    await post('/api/vacaciones/approve', { codigoPila: codes.cut });
    await post('/api/vacaciones/interrupt', { codigoPila: codes.cut, fechaInterrupcion: '2026-11-24', motivo: 'incapacidad' });
    // A consult is audited as an event, but is no business event.
    expect((await plain.get('/api/vacaciones/consultdatavacations', { numeroDocumento: W.maria, emailResponsable: ADMIN })).status).toBe(
      200,
    );
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await Promise.all([t?.drop(), other?.drop()]);
  });

  it('hands out the business events in log order as CloudEvents, each with the record as the API shows it after it', async () => {
    const { eventos } = await ok({ limite: '1000' });
    expect(eventos.map((e) => [e.type, e.codigopila])).toEqual([
      ['co.vacaciones.vacacion.creada', codes.approved],
      ['co.vacaciones.vacacion.aprobada', codes.approved],
      ['co.vacaciones.vacacion.creada', codes.deleted],
      ['co.vacaciones.vacacion.eliminada', codes.deleted],
      ['co.vacaciones.vacacion.creada', codes.old],
      ['co.vacaciones.vacacion.reemplazada', codes.old],
      ['co.vacaciones.vacacion.editada', codes.edited],
      ['co.vacaciones.vacacion.creada', codes.cut],
      ['co.vacaciones.vacacion.aprobada', codes.cut],
      ['co.vacaciones.vacacion.interrumpida', codes.cut],
    ]);
    for (const e of eventos) {
      expect(e).toMatchObject({ specversion: '1.0', source: '/api/vacaciones', datacontenttype: 'application/json' });
      expect(e.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(Number.isNaN(Date.parse(e.time))).toBe(false);
      expect(vacationView.safeParse(e.data).error).toBeUndefined();
      expect(e.subject).toBe(e.data.documentNumber);
    }
    // The last event of each record shows it as the API does now; earlier ones as it was then.
    for (const code of Object.values(codes)) {
      const last = eventos.filter((e) => e.codigopila === code).at(-1);
      const now = (await plain.get(`/api/vacaciones/registro/${code}`, { emailResponsable: ADMIN })).body.vacacion;
      expect(last.data).toEqual(now);
    }
    const created = eventos.find((e) => e.codigopila === codes.approved);
    expect(created.data).toMatchObject({ approved: false, approvedAt: null });
    const cutCreated = eventos.find((e) => e.codigopila === codes.cut);
    expect(cutCreated.data).toMatchObject({ interruptedOn: null, businessDays: 15 });
  });

  it('gives the same answer for the same cursor, and pages to the same events', async () => {
    const whole = await ok({ limite: '1000' });
    expect(await ok({ limite: '1000' })).toEqual(whole);
    const paged: Json[] = [];
    let desde = '';
    for (let i = 0; i < 20; i++) {
      const page = await ok({ limite: '3', ...(desde ? { desde } : {}) });
      if (page.eventos.length === 0) break;
      paged.push(...page.eventos);
      expect(await ok({ limite: '3', ...(desde ? { desde } : {}) })).toEqual(page);
      desde = page.siguiente;
    }
    expect(paged).toEqual(whole.eventos);
    expect(desde).toBe(whole.siguiente);
  });

  it('refuses a malformed cursor, a cursor of another database, bad limits and keys without the eventos scope', async () => {
    const store = await openEventStore({ eventStore: 'postgres', kurrentdbUrl: undefined }, other.db);
    await store.append([
      { stream: 'worker-1', expectedRevision: 'no_stream', events: [{ id: randomUUID(), type: 'Elsewhere', data: {} }] },
    ]);
    const foreign = cursorOf(await cursorKeyOf(other.db, store), START);
    const key = await cursorKeyOf(t.db, service.store);
    const { siguiente } = await ok({ limite: '2' });
    const [, tag, commit, prepare, mac] = Buffer.from(siguiente, 'base64url').toString().split('.');
    expect(tag).toBe(await logTag(service.store));
    const token = (text: string) => Buffer.from(text).toString('base64url');
    const cases: [Record<string, string>, string][] = [
      [{ desde: 'abc' }, FEED_MESSAGES.malformed],
      // This database's tag, a position edited by hand: its HMAC no longer matches.
      [{ desde: token(`ev2.${tag}.${BigInt(commit!) + 1n}.${prepare}.${mac}`) }, FEED_MESSAGES.malformed],
      [{ desde: token(`ev2.${tag}.${commit}.${BigInt(prepare!) - 1n}.${mac}`) }, FEED_MESSAGES.malformed],
      // Signed with another key, and unsigned as cursors were before they were signed.
      [{ desde: cursorOf({ tag: tag!, secret: 'otra clave' }, { commit: 1n, prepare: 1n }) }, FEED_MESSAGES.malformed],
      [{ desde: token(`ev1.${tag}.${commit}.${prepare}`) }, FEED_MESSAGES.malformed],
      // Positions past PostgreSQL's bigint: 20 digits, and 19 over the largest even when signed.
      [{ desde: token(`ev2.${tag}.${'9'.repeat(20)}.1.${mac}`) }, FEED_MESSAGES.malformed],
      [{ desde: cursorOf(key, { commit: 9_223_372_036_854_775_808n, prepare: 1n }) }, FEED_MESSAGES.malformed],
      // Given while a log was empty, it names the start alone.
      [{ desde: cursorOf({ ...key, tag: '0' }, { commit: 1n, prepare: 2n }) }, FEED_MESSAGES.otherDatabase],
      [{ desde: foreign }, FEED_MESSAGES.otherDatabase],
      [{ limite: '1001' }, FEED_MESSAGES.limit],
      [{ limite: '0' }, FEED_MESSAGES.limit],
      [{ espera: '31' }, FEED_MESSAGES.wait],
    ];
    for (const [query, message] of cases) {
      const r = await feed(query);
      expect(r.status, r.text).toBe(400);
      expect(r.body).toEqual({ success: false, statusCode: 400, message });
    }
    expect((await plain.get('/api/eventos')).status).toBe(403);
    // The cursor as given is taken, and so is a signed one at the largest position a bigint holds.
    expect((await ok({ desde: siguiente })).eventos.length).toBeGreaterThan(0);
    const last = 9_223_372_036_854_775_807n;
    expect(await ok({ desde: cursorOf(key, { commit: last, prepare: last }) })).toMatchObject({ eventos: [] });
  });

  it('waits with espera and answers as soon as an event is appended', async () => {
    const { siguiente } = await ok({ limite: '1000' });
    const quiet = Date.now();
    expect((await ok({ desde: siguiente, espera: '1' })).eventos).toEqual([]);
    expect(Date.now() - quiet).toBeGreaterThanOrEqual(950);

    const started = Date.now();
    const waiting = ok({ desde: siguiente, espera: '20' });
    await new Promise((r) => setTimeout(r, 300));
    const added = await addVacation(plain, vacationForm(W.maria, '2027-01-13', 6));
    const appendedAt = Date.now();
    const page = await waiting;
    expect(page.eventos.map((e) => [e.type, e.codigopila])).toEqual([['co.vacaciones.vacacion.creada', added.codigo_pila]]);
    // Woken by the append, not by the end of the wait.
    expect(Date.now() - appendedAt).toBeLessThan(1000);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
