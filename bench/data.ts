/**
 * The data of an employer as a payroll system would have it, for the benchmarks (`npm run bench`
 * and `npm run bench:scale`), and the requests the scenarios send on it.
 *
 * - Every subgerencia of the limited workers is under a company contract that limits the people on
 *   vacation at once (`numeroPersonasVacaciones` 2 or 3, rule d); a group of workers of their own
 *   subgerencias is under a contract without a limit (the no-limit case, labelled as such).
 * - Layouts: `small` (many subgerencias of 8 workers), `mixed` (sizes from 5 to 2,500 in turn) and
 *   `large` (20 subgerencias, 2,500 workers each at 50,000, whose historic vacations fall in the
 *   same weeks). Workers are spread over their subgerencias at random (seeded).
 * - Monthly payroll up to October 2026 and a contract from before it to 2027-12-31; historic
 *   vacations in 2024-2025; and bookings ahead (imported as the employer's vacations) in two-week
 *   places from the Monday after the benchmarks' today (2026-11-21): in every subgerencia the even
 *   places of the first twelve weeks are full (as many people as the limit), the odd ones have one
 *   place left.
 *
 * The requests are worked out with the rules the service applies, so that each scenario gets the
 * answer it means to measure:
 * - calculate: a start in a place with one place left, 6 days, for a worker not booked there who
 *   has the days: 200, after reading the subgerencia's months;
 * - refused: a start in a full place, 6 days, the worker with the days: 422 for rule (d) alone;
 * - add: valid creations in any order and at any concurrency: enjoyed vacations of 6 days in the
 *   places left (in the odd places, then in empty places after the twelve weeks) and vacations
 *   paid in money (1 day each) with the days the workers have left, spread evenly among them;
 * - noLimit: the workers without a limit, from 2026-03-02, 6 days (the months are not read).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { HolidayCalendar, addDays, endDate, isBusinessDay, nextBusinessDay } from '../src/domain/index.ts';
import type { SectionName } from '../src/reference/schema.ts';
import { vacationTerms } from '../test/support/dataset.ts';

/** The service's today in every benchmark on this data (VACACIONES_TODAY). */
export const BENCH_TODAY = '2026-11-21';
/** Changes whenever the rows or the requests generated for the same options change. */
export const BENCH_DATA_VERSION = 'r1';

export const LAYOUTS = ['small', 'mixed', 'large'] as const;
export type LayoutName = (typeof LAYOUTS)[number];

export interface BenchDataOptions {
  layout: LayoutName;
  /** Workers under a limit of people. */
  workers: number;
  /** Workers under the contract without a limit, in subgerencias of their own. */
  unlimited: number;
  /** Monthly payroll sheets of each worker, the last one of October 2026. */
  sheets: number;
  /** Historic vacations of each worker. */
  historic: number;
  firstWorkerId: number;
  /** First digit of the document numbers. */
  documentPrefix: string;
  /** Days each worker takes later by other means (bench:scale appends a 10-day vacation to each). */
  reservedDays?: number;
  /** Creations planned at most (default 40,000): the enjoyed ones that fit, then paid in money. */
  addPlanSize?: number;
}

/** [document, start, business days, paid in money (1) or enjoyed (0)] */
export type PlannedRequest = [string, string, number, 0 | 1];

export interface Plans {
  calculate: PlannedRequest[];
  refused: PlannedRequest[];
  add: PlannedRequest[];
  noLimit: PlannedRequest[];
  /** The limited subgerencias and the months of the places, for the panel's occupancy page. */
  units: string[];
  months: string[];
  summary: string;
}

type Row = Record<string, unknown>;

const DAYS = 6;
const NO_LIMIT_START = '2026-03-02';
const PLACES_ASKED = 6;
const FIRST_PLACE = '2026-11-23';
const CONTRACT_END = '2027-12-31';
const LAST_SHEET = { year: 2026, month: 10 };
const calendar = new HolidayCalendar();

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unitSizes(layout: LayoutName, workers: number): number[] {
  const sizes: number[] = [];
  const cycle = layout === 'small' ? [8] : layout === 'mixed' ? [5, 10, 20, 50, 100, 250, 500, 1000, 2500] : [Math.ceil(workers / 20)];
  for (let left = workers, i = 0; left > 0; i++) {
    const size = Math.min(left, cycle[i % cycle.length]!);
    sizes.push(size);
    left -= size;
  }
  return sizes;
}

/** A two-week place: its first and last business days and how many there are. */
interface Place {
  start: string;
  last: string;
  businessDays: number;
}

function placeAt(index: number): Place {
  const monday = addDays(FIRST_PLACE, 14 * index);
  const start = nextBusinessDay(monday, false, calendar);
  let businessDays = 0;
  let last = start;
  for (let d = 0; d < 14; d++) {
    const day = addDays(monday, d);
    if (isBusinessDay(day, false, calendar)) {
      businessDays++;
      last = day;
    }
  }
  return { start, last, businessDays };
}

/** The sheets' months, oldest first. */
function sheetMonths(sheets: number): { year: number; month: number }[] {
  return Array.from({ length: sheets }, (_, s) => {
    const back = sheets - 1 - s;
    const index = LAST_SHEET.year * 12 + LAST_SHEET.month - 1 - back;
    return { year: Math.floor(index / 12), month: (index % 12) + 1 };
  });
}

export class BenchData {
  readonly plans: Plans;
  private readonly ids: number[];
  /** Index into `units` of each worker (by position). */
  private readonly unitOfWorker: number[];
  private readonly units: { id: string; limit: number | null; company: number }[];
  private readonly ahead: { worker: number; place: Place }[] = [];
  private readonly contractStart: string;

  constructor(private readonly o: BenchDataOptions) {
    const total = o.workers + o.unlimited;
    this.ids = Array.from({ length: total }, (_, i) => o.firstWorkerId + i);
    const sizes = unitSizes(o.layout, o.workers);
    this.units = sizes.map((_, u) => {
      const limit = o.layout === 'large' || u % 2 === 1 ? 3 : 2;
      return { id: `SG-${pad(u + 1, 3)}`, limit, company: limit === 2 ? 1 : 2 };
    });
    const slots = sizes.flatMap((size, u) => Array<number>(size).fill(u));
    const rnd = random(20261121);
    for (let i = slots.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [slots[i], slots[j]] = [slots[j]!, slots[i]!];
    }
    const free = Math.max(1, Math.ceil(o.unlimited / 50));
    for (let k = 0; k < (o.unlimited ? free : 0); k++) this.units.push({ id: `SG-SL-${k + 1}`, limit: null, company: 3 });
    this.unitOfWorker = [...slots, ...Array.from({ length: o.unlimited }, (_, k) => sizes.length + (k % free))];
    // From the first sheet, or from 2023 when the sheets start later (the historic vacations are of 2024-2025).
    const first = sheetMonths(o.sheets)[0]!;
    const firstSheet = `${first.year}-${pad(first.month)}-01`;
    this.contractStart = firstSheet < '2023-01-01' ? firstSheet : '2023-01-01';
    this.plans = this.plan();
  }

  unitOf(workerId: number): string {
    return this.units[this.unitOfWorker[workerId - this.o.firstWorkerId]!]!.id;
  }

  document(workerId: number): string {
    return `${this.o.documentPrefix}${String(workerId).padStart(9, '0')}`;
  }

  private annual(id: number): number {
    return 1 + (id % 5) >= 4 ? 30 : 15;
  }

  /** Start and business days of the worker's k-th historic vacation. */
  private historic(i: number, k: number): { start: string; days: number } {
    const id = this.ids[i]!;
    // Large subgerencias take their vacations in the same weeks; elsewhere they are spread.
    const week = (this.o.layout === 'large' ? this.unitOfWorker[i]! % 3 : id % 13) + 21 * k;
    const start = nextBusinessDay(addDays('2024-01-01', 7 * week), false, calendar);
    return { start, days: 3 + ((id + k) % 3) };
  }

  /** Days accrued by `date` from the sheets ended by then, less what the worker has taken or will. */
  private budget(i: number, date: string): number {
    const ended = sheetMonths(this.o.sheets).filter((m) => `${m.year}-${pad(m.month)}-${lastDay(m.year, m.month)}` <= date).length;
    let taken = this.o.reservedDays ?? 0;
    for (let k = 0; k < this.o.historic; k++) taken += this.historic(i, k).days;
    return (ended * 30 * this.annual(this.ids[i]!)) / 360 - taken;
  }

  private plan(): Plans {
    const { workers } = this.o;
    const asked = Array.from({ length: PLACES_ASKED }, (_, p) => placeAt(p));
    const later: Place[] = [];
    for (let p = PLACES_ASKED; ; p++) {
      const place = placeAt(p);
      if (endDate(place.start, DAYS, false, calendar) > CONTRACT_END) break;
      later.push(place);
    }
    const left = this.ids.map((_, i) => this.budget(i, FIRST_PLACE));
    const booked = this.ids.map(() => new Set<number>());
    const members = this.units.map(() => [] as number[]);
    for (let i = 0; i < workers; i++) members[this.unitOfWorker[i]!]!.push(i);

    // Bookings ahead: in each subgerencia, a full even place and one place left in the odd ones,
    // taken in turn by the workers with the most days (a place's days and a request's to spare).
    const placesLeft = new Map<string, number>();
    for (const [u, unit] of this.units.entries()) {
      if (unit.limit === null) continue;
      const who = members[u]!;
      let turn = 0;
      for (const [p, place] of asked.entries()) {
        const want = p % 2 === 0 ? unit.limit : unit.limit - 1;
        let got = 0;
        for (let tries = 0; got < Math.min(want, who.length - 1) && tries < who.length; tries++) {
          const i = who[turn++ % who.length]!;
          if (left[i]! < place.businessDays + DAYS || booked[i]!.has(p)) continue;
          left[i]! -= place.businessDays;
          booked[i]!.add(p);
          this.ahead.push({ worker: i, place });
          got++;
        }
        placesLeft.set(`${u}:${p}`, unit.limit - got);
      }
    }

    const calculate: PlannedRequest[] = [];
    const refused: PlannedRequest[] = [];
    for (let i = 0; i < workers; i++) {
      const u = this.unitOfWorker[i]!;
      const limit = this.units[u]!.limit!;
      if (left[i]! < DAYS) continue;
      const pick = (full: boolean) => {
        for (let n = 0; n < PLACES_ASKED; n++) {
          const p = (i + n) % PLACES_ASKED;
          const isFull = placesLeft.get(`${u}:${p}`) === 0;
          if (isFull === full && !booked[i]!.has(p) && (full || placesLeft.get(`${u}:${p}`)! < limit)) return p;
        }
        return undefined;
      };
      const open = pick(false);
      if (open !== undefined) calculate.push([this.document(this.ids[i]!), asked[open]!.start, DAYS, 0]);
      const full = pick(true);
      if (full !== undefined) refused.push([this.document(this.ids[i]!), asked[full]!.start, DAYS, 0]);
    }

    // Creations: enjoyed where places are left (each worker at most twice), then paid in money.
    const enjoyed: PlannedRequest[] = [];
    const places = [
      ...asked.map((place, p) => ({ place, p })).filter(({ p }) => p % 2 === 1),
      ...later.map((place, n) => ({ place, p: PLACES_ASKED + n })),
    ];
    const times = new Map<number, number>();
    for (const { place, p } of places) {
      for (const [u, unit] of this.units.entries()) {
        if (unit.limit === null) continue;
        let room = placesLeft.get(`${u}:${p}`) ?? unit.limit;
        for (const i of members[u]!) {
          if (room === 0) break;
          if (booked[i]!.has(p) || left[i]! < DAYS || (times.get(i) ?? 0) >= 2) continue;
          left[i]! -= DAYS;
          booked[i]!.add(p);
          times.set(i, (times.get(i) ?? 0) + 1);
          enjoyed.push([this.document(this.ids[i]!), place.start, DAYS, 0]);
          room--;
        }
      }
    }
    // Paid in money, a day each, round after round over the workers so that neighbours differ.
    const money: PlannedRequest[] = [];
    const moneyStart = later[0]?.start ?? asked[0]!.start;
    const moneyWanted = Math.max(0, (this.o.addPlanSize ?? 40_000) - enjoyed.length);
    for (let round = 0; money.length < moneyWanted; round++) {
      const before = money.length;
      for (let i = 0; i < workers; i++) if (left[i]! - round >= 1) money.push([this.document(this.ids[i]!), moneyStart, 1, 1]);
      if (money.length - before < 64) {
        money.length = before;
        break;
      }
    }
    money.length = Math.min(money.length, moneyWanted);
    const add: PlannedRequest[] = [];
    for (let m = 0, e = 0; m < money.length || e < enjoyed.length;) {
      if (e < enjoyed.length && (m >= money.length || e * money.length <= m * enjoyed.length)) add.push(enjoyed[e++]!);
      else add.push(money[m++]!);
    }

    const noLimit: PlannedRequest[] = [];
    for (let i = workers; i < this.ids.length; i++) {
      if (this.budget(i, NO_LIMIT_START) >= DAYS) noLimit.push([this.document(this.ids[i]!), NO_LIMIT_START, DAYS, 0]);
    }
    const limited = this.units.filter((u) => u.limit !== null);
    const months = [...new Set(asked.flatMap((p) => [p.start.slice(0, 7), p.last.slice(0, 7)]))];
    const summary =
      `${this.o.layout} layout: ${workers} workers in ${limited.length} subgerencias with a limit of ${[...new Set(limited.map((u) => u.limit))].join(' or ')} people ` +
      `(sizes ${Math.min(...unitSizes(this.o.layout, workers))}-${Math.max(...unitSizes(this.o.layout, workers))}), ` +
      `${this.o.unlimited} without a limit; ${this.ahead.length} bookings ahead; requests: calculate ${calculate.length}, ` +
      `refused for the limit ${refused.length}, add ${add.length} (${enjoyed.length} enjoyed, ${money.length} paid in money), ` +
      `no limit ${noLimit.length}`;
    return { calculate, refused, add, noLimit, units: limited.map((u) => u.id), months, summary };
  }

  /** The reference data's rows in the import's sections, in the order the import reads them. */
  *rows(): Generator<[SectionName, Row]> {
    for (const unit of this.units) yield ['subgerencias', { id: unit.id, nombre: `Subgerencia ${unit.id}` }];
    for (const [id, limit] of [
      [1, 2],
      [2, 3],
      [3, null],
    ] as const) {
      yield ['contratosEmpresa', { id, nombre: `Contrato ${id}`, vacaciones: vacationTerms({ numeroPersonasVacaciones: limit }) }];
    }
    yield [
      'usuarios',
      { id: 1, email: 'admin@empresa.co', nombre: 'Administradora', administrador: true, permisos: ['vacaciones:eliminar'] },
    ];
    for (const id of this.ids) {
      yield ['asociados', { id, tipoDocumento: 'CC', numeroDocumento: this.document(id), nombres: `Nombre ${id}`, apellidos: 'Generado' }];
    }
    const salary = (id: number) => 1_500_000 + (id % 50) * 37_000;
    for (const [i, id] of this.ids.entries()) {
      yield [
        'contratos',
        {
          id,
          asociadoId: id,
          contratoEmpresaId: this.units[this.unitOfWorker[i]!]!.company,
          subgerenciaId: this.units[this.unitOfWorker[i]!]!.id,
          fechaInicio: this.contractStart,
          fechaFin: CONTRACT_END,
          liquidado: false,
          esAdicional: false,
          salarioBase: salary(id),
          nivelRiesgo: 1 + (id % 5),
        },
      ];
    }
    const months = sheetMonths(this.o.sheets);
    for (const id of this.ids) {
      for (const { year, month } of months) {
        yield [
          'nomina',
          {
            asociadoId: id,
            contratoId: id,
            periodoInicio: `${year}-${pad(month)}-01`,
            periodoFin: `${year}-${pad(month)}-${lastDay(year, month)}`,
            diasLaborados: 30,
            compensacionBasica: salary(id),
          },
        ];
      }
    }
    const code = (seq: number, id: number) =>
      `VAC_${1_700_000_000_000 + seq}_${seq.toString(16).padStart(8, '0')}_${(id % 65_536).toString(16).padStart(4, '0')}`;
    for (const [i, id] of this.ids.entries()) {
      for (let k = 0; k < this.o.historic; k++) {
        const { start, days } = this.historic(i, k);
        yield [
          'vacaciones',
          {
            codigoPila: code(id * 10 + k, id),
            asociadoId: id,
            fechaInicio: start,
            diasVacaciones: days,
            laboraSabado: false,
            compensado: k === 4,
            pagado: false,
            aprobado: k % 2 === 0,
          },
        ];
      }
    }
    for (const [n, { worker, place }] of this.ahead.entries()) {
      const id = this.ids[worker]!;
      yield [
        'vacaciones',
        {
          codigoPila: code(900_000_000 + n, id),
          asociadoId: id,
          fechaInicio: place.start,
          diasVacaciones: place.businessDays,
          laboraSabado: false,
          compensado: false,
          pagado: false,
          aprobado: n % 3 !== 0,
        },
      ];
    }
  }

  /** The rows as the import's JSON object (for sizes that fit in memory). */
  object(): Record<string, Row[]> {
    const out: Record<string, Row[]> = {};
    for (const [section, row] of this.rows()) (out[section] ??= []).push(row);
    return out;
  }
}

/**
 * Writes the rows to `path` in the import's JSON format (a row a line, each section an array) or
 * as NDJSON (an object a line, its section in `tipo`), streaming: a file of any size is written
 * without holding it.
 */
export async function writeBenchFile(path: string, format: 'json' | 'ndjson', rows: Iterable<[SectionName, Row]>): Promise<void> {
  const out = createWriteStream(path);
  const chunks: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!out.write(chunks.join(''))) await once(out, 'drain');
    chunks.length = 0;
    size = 0;
  };
  let section: SectionName | undefined;
  for (const [name, row] of rows) {
    let line: string;
    if (format === 'ndjson') line = `${JSON.stringify({ tipo: name, ...row })}\n`;
    else {
      const opening = name === section ? ',\n' : `${section ? '\n],' : '{'}\n${JSON.stringify(name)}: [\n`;
      section = name;
      line = opening + JSON.stringify(row);
    }
    chunks.push(line);
    size += line.length;
    if (size > 1 << 20) await flush();
  }
  if (format === 'json') chunks.push(section ? '\n]\n}\n' : '{}\n');
  out.end(chunks.join(''));
  await once(out, 'finish');
}
