import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.ts';
import { createLogger } from '../../../src/logger.ts';
import { ImportValidationError, importReferenceData, importReferenceSource } from '../../../src/reference/import.ts';
import { fileSource } from '../../../src/reference/sources.ts';
import { workerFileByDocument } from '../../../src/reference/worker-files.ts';
import { createApiKey } from '../../../src/security/api-keys.ts';
import { createService, type Service } from '../../../src/service.ts';
import { freshDb, hasServer, NEEDS_SERVER, type TestDb } from '../../support/db.ts';
import { ADMIN, W, client, type Json } from '../../support/http.ts';
import { loadFixture, tableCounts } from './helpers.ts';

const TODAY = '2026-12-02';

/** Maria's first fortnight with 5 of its days on sick leave, Juan's with 5 on unpaid leave; every other sheet as it was. */
function withLeave(): Json {
  const d = loadFixture();
  const first = (worker: number) => d.nomina.findIndex((n: Json) => n.asociadoId === worker && n.diasLaborados === 15);
  const maria = first(1001);
  const juan = first(1002);
  Object.assign(d.nomina[maria], { diasLaborados: 10, diasIncapacidad: 5 });
  Object.assign(d.nomina[juan], { diasLaborados: 10, diasLicenciaNoRemunerada: 5 });
  return { d, maria, juan };
}

/** The file as NDJSON: one row per line, its section in `tipo`. */
function ndjson(d: Json, dir: string): string {
  const lines = Object.keys(d).flatMap((s) => d[s].map((row: Json) => JSON.stringify({ tipo: s, ...row })));
  const path = join(dir, 'leave.ndjson');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe.skipIf(!hasServer())(`payroll sheets with leave${hasServer() ? '' : ` (skipped: ${NEEDS_SERVER})`}`, () => {
  let dir: string;
  const dbs: TestDb[] = [];
  const services: Service[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'vac-leave-'));
  });
  afterAll(async () => {
    for (const s of services) await s.close().catch(() => {});
    for (const t of dbs) await t.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const db = async () => {
    const t = await freshDb();
    dbs.push(t);
    return t;
  };

  /** The periods of each worker as the API answers them on a database holding `data`. */
  async function periodsOn(t: TestDb, docs: string[]) {
    const key = (await createApiKey(t.db, { name: 'nomina' })).key;
    const config = loadConfig({ DATABASE_URL: t.url!, VACACIONES_TODAY: TODAY, LOG_LEVEL: 'silent', PORT: '0' });
    const service = await createService(config, createLogger(config));
    services.push(service);
    const c = client(await service.app.listen({ port: 0, host: '127.0.0.1' }), key);
    const out: Record<string, Json> = {};
    for (const doc of docs) {
      const r = await c.get('/api/vacaciones/periodos', { numeroDocumento: doc, emailResponsable: ADMIN });
      expect(r.status, r.text).toBe(200);
      out[doc] = r.body.data;
    }
    return out;
  }

  it('stores the leave of a sheet from JSON and from NDJSON, and the worker file reads it back at its sheet', async () => {
    const { d } = withLeave();
    for (const load of [
      (t: TestDb) => importReferenceData(t.db, d),
      (t: TestDb) => importReferenceSource(t.db, fileSource(ndjson(d, dir))),
    ]) {
      const t = await db();
      await load(t);
      const maria = (await workerFileByDocument(t.db, W.maria))!;
      const p = maria.payroll;
      expect(p.leave).toBeDefined();
      const i = p.leave!.sick.findIndex((n) => n === 5);
      expect(i).toBeGreaterThanOrEqual(0);
      expect(p.days[i]).toBe(10);
      expect(p.leave!.sick.reduce((a, b) => a + b, 0)).toBe(5);
      expect(p.leave!.unpaidLeave.every((n) => n === 0)).toBe(true);
      const juan = (await workerFileByDocument(t.db, W.juan))!;
      expect(juan.payroll.leave!.unpaidLeave.reduce((a, b) => a + b, 0)).toBe(5);
      // A worker whose sheets hold no leave keeps the payroll of before.
      expect((await workerFileByDocument(t.db, W.luisa))!.payroll.leave).toBeUndefined();
    }
  });

  it('accrues sick leave as days worked and deducts unpaid leave, with the reason, through the API', async () => {
    const plain = await db();
    await importReferenceData(plain.db, loadFixture());
    const leave = await db();
    await importReferenceData(leave.db, withLeave().d);
    const before = await periodsOn(plain, [W.maria, W.juan]);
    const after = await periodsOn(leave, [W.maria, W.juan]);
    // Maria: 10 worked + 5 sick accrue as the 15 worked did.
    expect(after[W.maria].totales).toEqual(before[W.maria].totales);
    // Juan: 5 unpaid days accrue nothing (30 days a year: 5 × 30 / 360 = 0.42 days fewer), and the period says why.
    expect(after[W.juan].totales.diasCausados).toBeCloseTo(before[W.juan].totales.diasCausados - (5 * 30) / 360, 2);
    const deducted = after[W.juan].periodos.map((p: Json) => p.diasDescontados);
    expect(deducted.reduce((s: number, x: Json) => s + x.licenciaNoRemunerada, 0)).toBe(5);
    expect(deducted.every((x: Json) => x.suspension === 0)).toBe(true);
    expect(before[W.juan].periodos.every((p: Json) => p.diasDescontados.licenciaNoRemunerada === 0)).toBe(true);
  });

  it('refuses, all or nothing, a sheet whose days together exceed its length, naming the row and the field', async () => {
    const { d, maria } = withLeave();
    d.nomina[maria].diasIncapacidad = 6; // 10 worked + 6 sick in a fortnight of 15
    for (const load of [
      (t: TestDb) => importReferenceData(t.db, d),
      (t: TestDb) => importReferenceSource(t.db, fileSource(ndjson(d, dir))),
    ]) {
      const t = await db();
      const err = await load(t).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ImportValidationError);
      const problems = (err as ImportValidationError).problems;
      expect(problems.some((p) => p.includes('diasIncapacidad') && p.includes('16') && p.includes('15'))).toBe(true);
      expect(Object.values(await tableCounts(t.db)).every((n) => n === 0)).toBe(true);
    }
    const negative = withLeave().d;
    negative.nomina[0].diasSuspension = -1;
    const t = await db();
    const err = await importReferenceData(t.db, negative).catch((e: unknown) => e);
    expect((err as ImportValidationError).problems.some((p) => p.includes('nomina[0].diasSuspension'))).toBe(true);
  });
});
