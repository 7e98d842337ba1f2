import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { SECTION_NAMES, type SectionName } from '../../src/reference/schema.ts';
import { vacationTerms } from './dataset.ts';

/**
 * Reference data of a large employer, generated row by row so that a file of any size can be
 * written without holding it: `workers` workers with one contract each (2023 to 2027, so that
 * consult and calculate find it valid), `sheets` monthly payroll
 * sheets each (ending October 2026) and `vacations` historic vacations each (2024-2025, never
 * overlapping). Deterministic: the same options give the same rows, byte for byte.
 */
export interface ScaleOptions {
  workers: number;
  sheets?: number;
  vacations?: number;
  subgerencias?: number;
  firstWorkerId?: number;
}

export type Row = Record<string, unknown>;

/** Changes whenever the rows generated for the same options change (files are named by it). */
export const SCALE_DATA_VERSION = 'v2';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

export function scaleDocument(workerId: number): string {
  return `8${String(workerId).padStart(9, '0')}`;
}

export function* scaleRows(opts: ScaleOptions): Generator<[SectionName, Row]> {
  const sheets = opts.sheets ?? 12;
  const vacations = opts.vacations ?? 5;
  const units = opts.subgerencias ?? 100;
  const first = opts.firstWorkerId ?? 1;
  for (let u = 1; u <= units; u++) yield ['subgerencias', { id: `SG-${pad(u, 3)}`, nombre: `Subgerencia ${u}` }];
  yield [
    'contratosEmpresa',
    {
      id: 1,
      nombre: 'Contrato general',
      vacaciones: vacationTerms(),
    },
  ];
  yield [
    'usuarios',
    { id: 1, email: 'admin@empresa.co', nombre: 'Administradora', administrador: true, permisos: ['vacaciones:eliminar'] },
  ];
  const ids = Array.from({ length: opts.workers }, (_, i) => first + i);
  for (const id of ids) {
    yield ['asociados', { id, tipoDocumento: 'CC', numeroDocumento: scaleDocument(id), nombres: `Nombre ${id}`, apellidos: 'Generado' }];
  }
  const salary = (id: number) => 1_500_000 + (id % 50) * 37_000;
  for (const id of ids) {
    yield [
      'contratos',
      {
        id,
        asociadoId: id,
        contratoEmpresaId: 1,
        subgerenciaId: `SG-${pad(1 + (id % units), 3)}`,
        fechaInicio: '2023-01-01',
        fechaFin: '2027-12-31',
        liquidado: false,
        esAdicional: false,
        salarioBase: salary(id),
        nivelRiesgo: 1 + (id % 5),
      },
    ];
  }
  for (const id of ids) {
    for (let s = sheets - 1; s >= 0; s--) {
      const y = 2026 - Math.floor((s + 2) / 12);
      const m = 1 + ((10 - s - 1 + 12 * 12) % 12);
      yield [
        'nomina',
        {
          asociadoId: id,
          contratoId: id,
          periodoInicio: `${y}-${pad(m)}-01`,
          periodoFin: `${y}-${pad(m)}-${lastDay(y, m)}`,
          diasLaborados: 30,
          compensacionBasica: salary(id),
        },
      ];
    }
  }
  for (const id of ids) {
    for (let k = 0; k < vacations; k++) {
      // Every 21 weeks from a Monday of 2024, shifted by worker so that months fill evenly.
      const start = new Date(Date.UTC(2024, 0, 1 + 7 * ((id % 13) + 21 * k)));
      const seq = id * 10 + k;
      yield [
        'vacaciones',
        {
          codigoPila: `VAC_${1_700_000_000_000 + seq}_${seq.toString(16).padStart(8, '0')}_${(id % 65_536).toString(16).padStart(4, '0')}`,
          asociadoId: id,
          fechaInicio: start.toISOString().slice(0, 10),
          diasVacaciones: 5 + ((id + k) % 11),
          laboraSabado: (id + k) % 7 === 0,
          compensado: k === 4,
          pagado: false,
          aprobado: k % 2 === 0,
        },
      ];
    }
  }
}

/** The rows as the import's JSON object (for sizes that fit in memory). */
export function scaleObject(opts: ScaleOptions): Record<SectionName, Row[]> {
  const out = Object.fromEntries(SECTION_NAMES.map((s) => [s, [] as Row[]])) as Record<SectionName, Row[]>;
  for (const [section, row] of scaleRows(opts)) out[section].push(row);
  return out;
}

/**
 * Writes the rows to `path` as the import's JSON format (one row per line) or as NDJSON (one
 * object per line, its section in `tipo`), streaming, with back-pressure.
 */
export async function writeScaleFile(path: string, format: 'json' | 'ndjson', opts: ScaleOptions): Promise<void> {
  const out = createWriteStream(path);
  let buffer = '';
  const write = async (s: string) => {
    buffer += s;
    if (buffer.length < 1 << 20) return;
    if (!out.write(buffer)) await once(out, 'drain');
    buffer = '';
  };
  let current: SectionName | undefined;
  if (format === 'json') await write('{');
  for (const [section, row] of scaleRows(opts)) {
    if (format === 'ndjson') {
      await write(`${JSON.stringify({ tipo: section, ...row })}\n`);
      continue;
    }
    if (section !== current) {
      await write(`${current ? '\n],' : ''}\n${JSON.stringify(section)}: [\n`);
      current = section;
    } else await write(',\n');
    await write(JSON.stringify(row));
  }
  if (format === 'json') await write(`${current ? '\n]' : ''}\n}\n`);
  out.end(buffer);
  await once(out, 'finish');
}
