import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/logger.ts';
import { importReferenceData } from '../../src/reference/import.ts';
import { createApiKey } from '../../src/security/api-keys.ts';
import { createService } from '../../src/service.ts';
import { freshDb, type TestDb } from './db.ts';
import { client } from './http.ts';
import { loadFixture } from './server.ts';

/**
 * Reference data of made-up workers, each with one contract from a start date and monthly payroll
 * sheets of 30 days through November 2026, under the fixture's users and company contracts.
 */

const DEFAULT_UNITS = [
  { id: 'SG-CIERRE', nombre: 'Planta' },
  { id: 'SG-OTRA', nombre: 'Oficina' },
  { id: 'SG-CANCELA', nombre: 'Tienda' },
  { id: 'SG-CARRERA', nombre: 'Bodega' },
];

/** Monthly payroll sheets of 30 days from a month through November 2026. */
function sheets(workerId: number, contractId: number, from: string, salary: number) {
  const out = [];
  for (let d = new Date(`${from}T00:00:00Z`); d < new Date('2026-12-01T00:00:00Z'); d.setUTCMonth(d.getUTCMonth() + 1)) {
    const y = d.getUTCFullYear();
    const m = d.getUTCMonth();
    const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
    const month = `${y}-${String(m + 1).padStart(2, '0')}`;
    out.push({
      asociadoId: workerId,
      contratoId: contractId,
      periodoInicio: `${month}-01`,
      periodoFin: `${month}-${last}`,
      diasLaborados: 30,
      compensacionBasica: salary,
    });
  }
  return out;
}

export interface Person {
  id: number;
  unit: string;
  company?: number;
  start?: string;
  end?: string | null;
}

/** The fixture's users and company contracts, with these workers instead of its own. */
export function dataset(people: Person[], units = DEFAULT_UNITS) {
  const d = loadFixture();
  d.subgerencias = units;
  d.asociados = people.map((p) => ({
    id: p.id,
    tipoDocumento: 'CC',
    numeroDocumento: String(90_000_000 + p.id),
    nombres: `Nombre ${p.id}`,
    apellidos: 'Prueba',
  }));
  d.contratos = people.map((p) => ({
    id: p.id * 10,
    asociadoId: p.id,
    contratoEmpresaId: p.company ?? 10,
    subgerenciaId: p.unit,
    fechaInicio: p.start ?? '2024-01-01',
    fechaFin: p.end ?? '2028-12-31',
    liquidado: false,
    esAdicional: false,
    salarioBase: 3_000_000,
    nivelRiesgo: 1,
  }));
  d.nomina = people.flatMap((p) => sheets(p.id, p.id * 10, p.start ?? '2024-01-01', 3_000_000));
  d.vacaciones = [];
  return d;
}

/**
 * A service over a fresh database holding `people`, with an API key: what the HTTP tests of
 * company-wide decisions (closures, the plan) start from. `stop` closes it and drops the database.
 */
/**
 * A service in this process over the people: on its own PostgreSQL database, or with
 * `embedded`, on the embedded PGlite in a directory of its own (as a fresh install runs).
 */
export async function servePeople(people: Person[], today: string, units = DEFAULT_UNITS, opts: { embedded?: boolean } = {}) {
  const dataDir = opts.embedded ? mkdtempSync(join(tmpdir(), 'vac-people-')) : undefined;
  const t = dataDir ? undefined : await freshDb();
  const config = loadConfig({
    ...(t ? { DATABASE_URL: t.url! } : { DATABASE_URL: '', DATA_DIR: dataDir! }),
    VACACIONES_TODAY: today,
    LOG_LEVEL: 'silent',
    PORT: '0',
  });
  const service = await createService(config, createLogger(config));
  const db = t?.db ?? service.db;
  await importReferenceData(db, dataset(people, units));
  const key = (await createApiKey(db, { name: 'nomina' })).key;
  const url = await service.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    db,
    /** The test database, or the embedded one the service opened. */
    t: t ?? ({ db, url: undefined, drop: async () => {} } satisfies TestDb),
    url,
    c: client(url, key),
    stop: async () => {
      await service.close().catch(() => {});
      if (t) await t.drop();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
