import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { closureStream, workerStream } from '../../../src/events/streams.ts';
import { createLogger } from '../../../src/logger.ts';
import { importReferenceData } from '../../../src/reference/import.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, client, type Client } from '../../support/http.ts';
import { loadFixture, runCli } from '../../support/server.ts';

const SG_OPS = [W.maria, W.juan, W.luisa, W.camilo];
const scope = (start: string) => ['--subgerencia', 'SG-OPS', '--inicio', start, '--dias', '6', '--responsable', ADMIN];

describe.skipIf(!hasServer())(`vacaciones colectivas on the command line${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let t: TestDb;
  let service: Service;
  let env: NodeJS.ProcessEnv;
  let api: Client;

  const cli = (...args: string[]) => runCli(env, ['colectivas', ...args]);
  const head = () => service.store.headPosition();
  const liveRecords = async (doc: string) => {
    const r = await api.get('/api/vacaciones', { numeroDocumento: doc, emailResponsable: ADMIN });
    expect(r.status, r.text).toBe(200);
    return (r.body.vacaciones as { codigoPila: string; startDate: string; approved: boolean; status: string }[]).filter(
      (v) => v.status === 'live',
    );
  };
  /** The service reads what another process wrote once its projectors take it in. */
  const until = async (what: () => Promise<boolean>) => {
    const end = Date.now() + 20_000;
    while (!(await what())) {
      if (Date.now() > end) throw new Error('waited too long');
      await new Promise((r) => setTimeout(r, 100));
    }
  };

  beforeAll(async () => {
    t = await freshDb();
    await importReferenceData(t.db, loadFixture());
    const vars = { DATABASE_URL: t.url!, VACACIONES_TODAY: '2026-11-21', LOG_LEVEL: 'silent', PORT: '0' };
    env = { ...process.env, ...vars };
    const config = loadConfig(vars);
    service = await createService(config, createLogger(config), { webhooks: false });
    api = client(await service.app.listen({ port: 0, host: '127.0.0.1' }), (await createApiKey(t.db, { name: 'nomina' })).key);
  }, 60_000);
  afterAll(async () => {
    await service?.close().catch(() => {});
    await t?.drop();
  });

  let huella = '';

  it('previews the workers, those left out and the art. 187 warning, writing nothing; --json is the API body', async () => {
    const before = await head();
    const r = await cli('previa', ...scope('2026-11-30'));
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    for (const doc of SG_OPS) expect(lines.some((l) => l.startsWith(doc))).toBe(true);
    expect(lines.find((l) => l.startsWith(W.maria))).toMatch(/María Fernanda Gómez Restrepo\s+2026-12-07\s+8\s+\$ 569\.400\s+0$/);
    expect(lines.find((l) => l.includes(W.andres))).toContain('No tiene un contrato vigente el 2026-11-30');
    expect(lines).toContain('totals: 4 workers, 0 with days in advance, 1 left out, value $ 2.149.581');
    expect(lines).toContainEqual(expect.stringMatching(/^warning: El inicio \(2026-11-30\) está a menos de 15 días .*CST art\. 187/));
    huella = lines.at(-1)!;
    expect(huella).toMatch(/^\d+\.\d+\.\d+$/);

    const json = await cli('previa', ...scope('2026-11-30'), '--json');
    expect(json.code, json.stderr).toBe(0);
    const viaApi = await api.post('/api/vacaciones/colectivas', {
      subgerenciaId: 'SG-OPS',
      fechaInicio: '2026-11-30',
      dias: '6',
      vista: 'previa',
      emailUserResponsable: ADMIN,
    });
    expect(viaApi.status, viaApi.text).toBe(200);
    expect(JSON.parse(json.stdout)).toEqual(viaApi.body.data);
    expect(viaApi.body.data.huella).toBe(huella);

    expect(await head()).toEqual(before);
    expect(await liveRecords(W.maria)).toEqual([]);
  });

  it('books with the preview’s huella, refuses a stale one naming the workers, and approves the records together', async () => {
    const r = await cli('reservar', ...scope('2026-11-30'), '--huella', huella);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    const id = lines.at(-1)!;
    expect(id).toMatch(/^COL_\d+_[0-9a-f]{8}$/);
    expect(lines[0]).toBe('booked the closure of subgerencias SG-OPS from 2026-11-30: 4 records, pending approval');
    const [scheduled] = await service.store.readStream(closureStream(id));
    expect(scheduled!.metadata).toMatchObject({ userEmail: ADMIN, source: 'cli' });
    await until(async () => (await liveRecords(W.camilo)).length === 1);
    for (const doc of SG_OPS) expect((await liveRecords(doc)).map((v) => v.startDate)).toEqual(['2026-11-30']);

    const before = await head();
    const stale = await cli('reservar', ...scope('2026-11-30'), '--huella', huella);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(
      `vacaciones: La situación de algunos trabajadores cambió desde la vista previa; no se reservó nada (Cambiaron los trabajadores con documento ${SG_OPS.join(', ')})\n`,
    );
    expect(await head()).toEqual(before);

    const approved = await cli('aprobar', id, '--responsable', ADMIN);
    expect(approved).toMatchObject({ code: 0, stdout: `approved closure ${id}: 4 records\n` });
    await until(async () => (await liveRecords(W.camilo))[0]!.approved);
    for (const doc of SG_OPS) expect((await liveRecords(doc))[0]!.approved).toBe(true);
  });

  it('cancels a closure before its start: its records are deleted with the reason', async () => {
    const booked = await cli('reservar', ...scope('2027-01-18'));
    expect(booked.code, booked.stderr).toBe(0);
    const id = booked.stdout.trim().split('\n').at(-1)!;
    const r = await cli('cancelar', id, '--motivo', 'La planta abre en enero', '--responsable', ADMIN);
    expect(r).toMatchObject({ code: 0, stdout: `cancelled closure ${id}: 4 records deleted\n` });
    const deleted = (await service.store.readStream(workerStream(1001))).filter((e) => e.type === 'VacationDeleted');
    expect(deleted.map((e) => e.data)).toEqual([expect.objectContaining({ closureId: id, closureReason: 'La planta abre en enero' })]);
    await until(async () => (await liveRecords(W.maria)).length === 1);
    expect((await liveRecords(W.maria)).map((v) => v.startDate)).toEqual(['2026-11-30']);
  });

  it.each([
    [
      'an unknown subgerencia',
      ['--subgerencia', 'SG-NADA', '--inicio', '2026-12-28'],
      'No existe la subgerencia (--subgerencia: No hay subgerencia SG-NADA)',
    ],
    [
      'a Saturday start',
      ['--subgerencia', 'SG-OPS', '--inicio', '2026-12-26'],
      'No se pueden programar las vacaciones colectivas (--inicio: La fecha de inicio 2026-12-26 no es un día hábil)',
    ],
    [
      'no scope',
      ['--inicio', '2026-12-28'],
      'Datos requeridos faltantes (Indique las subgerencias (--subgerencia) o un contrato de empresa (--contrato-empresa), uno de los dos)',
    ],
  ])('refuses %s in Spanish, naming the option, writing nothing', async (_what, args, message) => {
    const before = await head();
    const r = await cli('reservar', ...args, '--dias', '6', '--responsable', ADMIN);
    expect(r).toEqual({ code: 1, stdout: '', stderr: `vacaciones: ${message}\n` });
    expect(await head()).toEqual(before);
  });
});
