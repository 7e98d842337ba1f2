import type { Contract } from '../reference/types.ts';
import type { WorkerFileRow } from '../reference/worker-files.ts';
import {
  liabilityTally,
  movementTally,
  type LiabilityLine,
  type LiabilitySum,
  type MovementLine,
  type MovementSum,
  type Tally,
  type Totals,
} from '../projections/reports/liability.ts';
import { accrualCheck } from '../projections/reports/balance.ts';
import { days } from '../projections/reports/periods.ts';
import { lawProblemMessage } from './law-messages.ts';
import type { Cell } from './book-columns.ts';
import { col, type PeopleColumn, type PeopleLayout } from './people-formats.ts';

/**
 * The liability and its month's movement as their readers take them: the JSON bodies, and the
 * tables of the CSV and XLSX answers (one line a worker, then the totals per subgerencia, per
 * company contract and of the company), in the API's columns for programs and in Spanish labels
 * for people. Each table's columns are written once, with their labels.
 */

const who = (f: WorkerFileRow) => ({
  asociadoId: f.worker.id,
  tipoDocumento: f.worker.documentType,
  numeroDocumento: f.worker.documentNumber,
  nombres: f.worker.firstNames,
  apellidos: f.worker.lastNames,
});

const where = (c: Contract) => ({ contratoId: c.id, subgerenciaId: c.subgerenciaId, contratoEmpresaId: c.companyContractId });

/**
 * Why the contract a worker is valued under accrues nothing (no dates, company contract, risk
 * level or vacation parameters), in the words the periods' refusal uses; null when it accrues.
 * The worker is still in the liability (days taken are owed back), but a reader must see why the
 * figure is what it is.
 */
function observation(l: { file: WorkerFileRow; contract: Contract }): string | null {
  const checked = accrualCheck(l.file, l.contract);
  return checked.ok ? null : lawProblemMessage(checked.problem);
}

/** A monthly salary's day (a thirtieth), to the cent: what the pending days are valued at. */
const dailySalary = (salary: number) => Math.round((salary * 100) / 30) / 100;

export function liabilityWorkerBody(l: LiabilityLine) {
  const x = l.liability;
  return {
    ...who(l.file),
    ...where(l.contract),
    diasCausados: days(x.accruedUnits),
    diasDisfrutados: x.enjoyedDays,
    diasCompensados: x.compensatedDays,
    diasPendientes: days(x.pendingUnits),
    salarioMensual: x.salary,
    salarioDiario: dailySalary(x.salary),
    valor: x.value,
    anticipado: x.advance,
    observacion: observation(l),
  };
}

const liabilitySumBody = (s: LiabilitySum) => ({
  trabajadores: s.workers,
  diasPendientes: days(s.pendingUnits),
  diasAnticipados: days(s.advanceUnits),
  valor: s.value,
  anticipado: s.advance,
});

export function movementWorkerBody(l: MovementLine) {
  const m = l.movement;
  return {
    ...who(l.file),
    ...where(l.contract),
    salarioMensual: (m.closing ?? m.opening)!.salary,
    diasCausados: days(m.accruedUnits),
    diasTomados: m.takenDays,
    apertura: m.openingValue,
    causado: m.accruedValue,
    tomado: m.takenValue,
    revaluacion: m.revaluation,
    cierre: m.closingValue,
    observacion: observation(l),
  };
}

const movementSumBody = (s: MovementSum) => ({
  trabajadores: s.workers,
  diasCausados: days(s.accruedUnits),
  diasTomados: s.takenDays,
  apertura: s.opening,
  causado: s.accrued,
  tomado: s.taken,
  revaluacion: s.revaluation,
  cierre: s.closing,
});

const byKey = <K extends string | number | null>(a: [K, unknown], b: [K, unknown]) =>
  a[0] === b[0] ? 0 : a[0] === null ? 1 : b[0] === null ? -1 : a[0] < b[0] ? -1 : 1;

function totalsBody<S, B>(t: Totals<S>, body: (s: S) => B) {
  return {
    ...body(t.company),
    porSubgerencia: [...t.bySubgerencia].sort(byKey).map(([subgerenciaId, s]) => ({ subgerenciaId, ...body(s) })),
    porContratoEmpresa: [...t.byCompanyContract].sort(byKey).map(([contratoEmpresaId, s]) => ({ contratoEmpresaId, ...body(s) })),
  };
}

export const liabilityTotalsBody = (t: Totals<LiabilitySum>) => totalsBody(t, liabilitySumBody);
export const movementTotalsBody = (t: Totals<MovementSum>) => totalsBody(t, movementSumBody);

const WHO_COLUMNS = {
  registro: col('Línea', 'word', 22),
  asociadoId: col('Id trabajador', 'int'),
  tipoDocumento: col('Tipo de documento', 'text', 10),
  numeroDocumento: col('Documento', 'text', 14),
  nombres: col('Nombres', 'text', 22),
  apellidos: col('Apellidos', 'text', 22),
  contratoId: col('Contrato', 'int'),
  subgerenciaId: col('Subgerencia', 'text', 14),
  contratoEmpresaId: col('Contrato de empresa', 'int', 12),
  trabajadores: col('Trabajadores', 'int', 12),
} satisfies Record<string, PeopleColumn>;

const LIABILITY_LABELS = {
  alCorte: col('Corte', 'date', 13),
  ...WHO_COLUMNS,
  diasCausados: col('Días causados', 'days', 11),
  diasDisfrutados: col('Días disfrutados', 'days', 11),
  diasCompensados: col('Días compensados', 'days', 11),
  diasPendientes: col('Días pendientes', 'days', 11),
  diasAnticipados: col('Días anticipados', 'days', 11),
  salarioMensual: col('Salario', 'money', 14),
  salarioDiario: col('Salario diario', 'money', 14),
  valor: col('Pasivo', 'money', 16),
  anticipado: col('Anticipado', 'money', 14),
  observacion: col('Observación', 'text', 40),
} satisfies Record<string, PeopleColumn>;

const MOVEMENT_LABELS = {
  periodo: col('Mes', 'text', 9),
  ...WHO_COLUMNS,
  salarioMensual: col('Salario', 'money', 14),
  diasCausados: col('Días causados en el mes', 'days', 12),
  diasTomados: col('Días tomados en el mes', 'days', 12),
  apertura: col('Saldo inicial', 'money', 16),
  causado: col('Causado', 'money', 14),
  tomado: col('Tomado', 'money', 14),
  revaluacion: col('Ajuste por salario', 'money', 14),
  cierre: col('Saldo final', 'money', 16),
  observacion: col('Observación', 'text', 40),
} satisfies Record<string, PeopleColumn>;

export interface Table {
  columns: readonly string[];
  people: PeopleLayout;
}

const tableOf = (labels: Record<string, PeopleColumn>): Table => ({
  columns: Object.keys(labels),
  people: { columns: Object.values(labels) },
});

export const LIABILITY_TABLE = tableOf(LIABILITY_LABELS);
export const MOVEMENT_TABLE = tableOf(MOVEMENT_LABELS);

type Line = Record<string, Cell | undefined>;

const rowOf = (table: Table, l: Line): Cell[] => table.columns.map((c) => l[c] ?? null);

/** A worker's line of the liability on `date`. */
export const liabilityRow = (date: string, l: LiabilityLine): Cell[] =>
  rowOf(LIABILITY_TABLE, { registro: 'trabajador', alCorte: date, ...liabilityWorkerBody(l) });

export const movementRow = (month: string, l: MovementLine): Cell[] =>
  rowOf(MOVEMENT_TABLE, { registro: 'trabajador', periodo: month, ...movementWorkerBody(l) });

/** The totals' lines, after the workers': each subgerencia, each company contract, the company. */
function totalRows<S>(table: Table, head: Line, t: Totals<S>, body: (s: S) => Line): Cell[][] {
  return [
    ...[...t.bySubgerencia]
      .sort(byKey)
      .map(([subgerenciaId, s]) => rowOf(table, { ...head, registro: 'total subgerencia', ...body(s), subgerenciaId })),
    ...[...t.byCompanyContract]
      .sort(byKey)
      .map(([contratoEmpresaId, s]) => rowOf(table, { ...head, registro: 'total contrato de empresa', ...body(s), contratoEmpresaId })),
    rowOf(table, { ...head, registro: 'total', ...body(t.company) }),
  ];
}

export const liabilityTotalRows = (date: string, t: Totals<LiabilitySum>) =>
  totalRows(LIABILITY_TABLE, { alCorte: date }, t, liabilitySumBody);
export const movementTotalRows = (month: string, t: Totals<MovementSum>) =>
  totalRows(MOVEMENT_TABLE, { periodo: month }, t, movementSumBody);

/** The table's groups of lines as the workers come (one line each), then the totals' lines. */
async function* rowsWithTotals<L extends { contract: Contract }, S, V>(
  lines: AsyncIterable<L>,
  tally: Tally<S, V>,
  valueOf: (l: L) => V,
  row: (l: L) => Cell[],
  totals: (t: Totals<S>) => Cell[][],
): AsyncGenerator<Cell[][]> {
  for await (const l of lines) {
    tally.take(l.contract, valueOf(l));
    yield [row(l)];
  }
  yield totals(tally.totals);
}

export const liabilityTableRows = (date: string, lines: AsyncIterable<LiabilityLine>) =>
  rowsWithTotals(
    lines,
    liabilityTally(),
    (l) => l.liability,
    (l) => liabilityRow(date, l),
    (t) => liabilityTotalRows(date, t),
  );

export const movementTableRows = (month: string, lines: AsyncIterable<MovementLine>) =>
  rowsWithTotals(
    lines,
    movementTally(),
    (l) => l.movement,
    (l) => movementRow(month, l),
    (t) => movementTotalRows(month, t),
  );
