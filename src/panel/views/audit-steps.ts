import { emptyWorkerState, evolve, type WorkerState } from '../../events/worker-state.ts';
import { decode } from '../../events/codec.ts';
import { workerStream } from '../../events/streams.ts';
import type { DomainEvent } from '../../events/types.ts';
import { type StoredEvent } from '../../app/ports.ts';
import { html, pilaCode, shortDate, type Html } from '../html.ts';
import type { PanelContext } from '../context.ts';
import { stateBadge } from './display-state.ts';

/** Records of queries and failed edits shown beside the worker's stream, newest first. */
export const OTHER_RECORDS = 200;

export interface Meta {
  userEmail?: string | null;
  apiKeyName?: string | null;
  requestId?: string | null;
  source?: string;
}

export interface Step {
  n: number;
  stored: StoredEvent;
  event: DomainEvent | undefined;
  code: string | null;
  state: WorkerState;
}

export const codeOf = (e: DomainEvent | undefined): string | null => {
  const d = e?.data as { codigoPila?: unknown } | undefined;
  return typeof d?.codigoPila === 'string' ? d.codigoPila : null;
};

/** A worker's stream, each event with the state it leaves behind. */
export async function workerSteps(ctx: PanelContext, workerId: number): Promise<Step[]> {
  const events = await ctx.deps.store.readStream(workerStream(workerId));
  let state = emptyWorkerState();
  return events.map((stored, i) => {
    const event = decode(stored)?.event;
    if (event) state = evolve(state, event);
    return { n: i + 1, stored, event, code: codeOf(event), state };
  });
}

/** One action of a person, as the history shows it: an edit's three events are one step. */
export interface ActionStep extends Step {
  /** The events of the action, in order; `stored` and `event` are the one that names it. */
  parts: Step[];
  /** Every record code the action touches. */
  codes: string[];
}

const newCodeOf = (e: DomainEvent | undefined): string | null => {
  const d = e?.data as { newCodigoPila?: unknown } | undefined;
  return typeof d?.newCodigoPila === 'string' ? d.newCodigoPila : null;
};

/**
 * A worker's events grouped by action: an edit (its start, the old record's release and the new
 * record) is one step, named by the new record; any other event is a step of its own. Steps are
 * numbered from 1 in order.
 */
export function actionSteps(events: readonly Step[]): ActionStep[] {
  const steps: ActionStep[] = [];
  /** Edits under way: the old record's code and the new one's, to the step that holds them. */
  const open = new Map<string, ActionStep>();
  for (const e of events) {
    const ev = e.event;
    const editOf =
      ev?.type === 'VacationDeleted' && ev.data.reason === 'edit'
        ? open.get(ev.data.codigoPila)
        : ev?.type === 'VacationCreated' && ev.data.replaces
          ? open.get(ev.data.replaces)
          : undefined;
    if (editOf) {
      editOf.parts.push(e);
      if (e.code) editOf.codes.push(e.code);
      // The new record names the edit; the state is the one after its last event.
      if (ev?.type === 'VacationCreated') Object.assign(editOf, { stored: e.stored, event: ev, code: e.code });
      editOf.state = e.state;
      continue;
    }
    const step: ActionStep = {
      ...e,
      n: steps.length + 1,
      parts: [e],
      codes: [e.code, newCodeOf(ev)].filter((c): c is string => c !== null),
    };
    steps.push(step);
    if (ev?.type === 'VacationEditStarted' && e.code) open.set(e.code, step);
  }
  return steps;
}

/** A record's code and days as the audit trail's sentences name them. */
export const recordDays = (d: { codigoPila: string; startDate: string; endDate: string }) =>
  `${d.codigoPila} del ${shortDate(d.startDate)} al ${shortDate(d.endDate)}`;

/** What happened, in a sentence. */
export function describe(e: DomainEvent | undefined, stored: StoredEvent): string {
  if (!e) return `Evento ${stored.type}`;
  switch (e.type) {
    case 'VacationCreated':
      return e.data.replaces
        ? `Edición de ${e.data.replaces}: ahora ${recordDays(e.data)} (${e.data.businessDays} días hábiles)`
        : `Registro de vacaciones ${recordDays(e.data)} (${e.data.businessDays} días hábiles${e.data.compensated ? ', compensadas' : ''})`;
    case 'VacationImported':
      return (
        `Importación de vacaciones históricas ${recordDays(e.data)} ` +
        `(${e.data.businessDays} días hábiles, ${e.data.approved ? 'aprobadas' : 'sin aprobar'})`
      );
    case 'VacationApproved':
      return `Aprobación de ${e.data.codigoPila}`;
    case 'VacationDeleted':
      return e.data.reason === 'edit'
        ? `Baja de ${e.data.codigoPila} por edición (reemplazada por ${e.data.replacedBy})`
        : `Eliminación de ${e.data.codigoPila}`;
    case 'VacationInterrupted':
      return (
        `Interrupción de ${e.data.codigoPila} el ${shortDate(e.data.interruptedOn)} (${e.data.reason}): ` +
        `${e.data.businessDays} días hábiles disfrutados hasta el ${shortDate(e.data.endDate)}, ${e.data.daysReturned} devueltos al saldo`
      );
    case 'VacationEditStarted':
      return `Inicio de edición de ${e.data.codigoPila} hacia ${e.data.newCodigoPila}`;
    default:
      return `Evento ${e.type}`;
  }
}

export const through = (m: Meta) =>
  m.apiKeyName
    ? `API key «${m.apiKeyName}»`
    : m.source === 'panel'
      ? 'panel web'
      : m.source === 'import'
        ? 'importación'
        : m.source === 'cli'
          ? 'línea de comandos'
          : '—';

export const ACTION_LABEL: Record<string, string> = {
  CONSULTA_DATOS: 'Consulta de datos de vacaciones',
  VERIFICACION_CONTRATO: 'Verificación de contrato',
  ERROR_EDICION: 'Edición fallida',
};

/** A worker's live records after a step: how many, their business days, their codes. */
export function liveSummary(state: WorkerState): { records: number; businessDays: number; codes: string[] } {
  const live = [...state.vacations.values()].filter((v) => !v.deleted);
  return { records: live.length, businessDays: live.reduce((n, v) => n + v.businessDays, 0), codes: live.map((v) => v.codigoPila) };
}

export function stateTable(state: WorkerState, code: string | null): Html {
  const list = [...state.vacations.values()].sort((a, b) => a.startDate.localeCompare(b.startDate));
  if (list.length === 0) return html`<p>Hasta este paso el trabajador no tenía vacaciones.</p>`;
  const { records, businessDays } = liveSummary(state);
  return html`<p>${records} ${records === 1 ? 'registro vigente' : 'registros vigentes'}, ${businessDays} días hábiles tomados.</p>
<table>
  <caption>Vacaciones en ese momento</caption>
  <thead><tr>
    <th scope="col">Código PILA</th><th scope="col">Del</th><th scope="col">Al</th><th scope="col" class="num">Días hábiles</th>
    <th scope="col">Estado</th>
  </tr></thead>
  <tbody>${list.map(
    (v) => html`<tr${v.codigoPila === code ? html` class="chosen"` : ''}>
      <td>${pilaCode(v.codigoPila)}</td><td>${shortDate(v.startDate)}</td><td>${shortDate(v.endDate)}</td>
      <td class="num">${v.businessDays}</td><td>${stateBadge(v)}</td></tr>`,
  )}</tbody>
</table>`;
}

/**
 * A download's Content-Disposition: the name as it is (RFC 5987 `filename*`, for browsers that
 * read it) and with anything but letters, digits, dot, dash and underscore replaced (for the rest).
 */
export function attachment(name: string): string {
  const plain = name.replace(/[^A-Za-z0-9._-]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${plain}"; filename*=UTF-8''${encoded}`;
}
