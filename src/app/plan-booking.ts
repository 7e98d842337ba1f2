import type { LineFailure, PlanBooking, PlanBookingOutcome, PlanLine, RefusedLine } from '../commands/plan-booking.ts';
import { repeatedLine } from '../commands/plan-booking.ts';
import type { VacationRecord } from '../events/types.ts';
import { nestsDeeperThan } from './body-depth.ts';
import { Fields } from './fields.ts';
import { MESSAGES, repeatedField } from './messages.ts';
import { noticesField, type NoticeBody } from './notices.ts';
import { recordWire } from './record-wire.ts';
import { refusalWords } from './refusals.ts';
import { MAX_PLAN_LINES, planBookingBody, planLineBody } from './schemas.ts';
import { validate, type Rejection } from './vacation-input.ts';
import type { Call } from './vacations.ts';
import type { Position } from '../store/types.ts';

/**
 * The annual plan booked at once, as the API and the panel say it: the lines read and checked,
 * every refused line in the add's own words, and the records booked.
 */

type Parsed<T> = { ok: true; value: T } | ({ ok: false } & Rejection);

const badInput = (errors: Record<string, string>): { ok: false } & Rejection => ({
  ok: false,
  status: 400,
  message: MESSAGES.missingData,
  errors,
});

/** `lineas[i]`, the key a line's problems are named by (from 0, as in the list sent). */
export const lineKey = (index: number) => `lineas[${index}]`;

/** The refusal of a worker's second line, named by that line. */
const twiceText = (twice: { documentNumber: string; indexes: [number, number] }) => ({
  [lineKey(twice.indexes[1])]:
    `El trabajador con documento ${twice.documentNumber} ya está en ${lineKey(twice.indexes[0])}: una sola línea por trabajador`,
});

/** The lines as sent (a list; in a form, that list as JSON text), each checked as the add checks its fields. */
export function parsePlanLines(raw: unknown): Parsed<PlanLine[]> {
  let list = raw;
  if (typeof list === 'string') {
    if (nestsDeeperThan(list)) return badInput({ lineas: MESSAGES.bodyTooDeep });
    try {
      list = JSON.parse(list) as unknown;
    } catch {
      list = undefined;
    }
  }
  if (raw === undefined || raw === '') return badInput({ lineas: 'El campo lineas es requerido' });
  if (!Array.isArray(list))
    return badInput({ lineas: 'lineas debe ser una lista de líneas con numeroDocumento, vacFechaInicio y vacDiasVacaciones' });
  if (list.length === 0) return badInput({ lineas: 'lineas debe tener al menos una línea' });
  if (list.length > MAX_PLAN_LINES) return badInput({ lineas: `lineas admite a lo sumo ${MAX_PLAN_LINES} líneas por solicitud` });
  const errors: Record<string, string> = {};
  const lines: PlanLine[] = [];
  list.forEach((item, i) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      errors[lineKey(i)] = 'Cada línea es un objeto con numeroDocumento, vacFechaInicio y vacDiasVacaciones';
      return;
    }
    const r = validate(planLineBody, new Fields(item));
    if (!r.ok) for (const [name, text] of r.problems) errors[`${lineKey(i)}.${name}`] = text;
    else
      lines.push({ documentNumber: r.value.numeroDocumento, startDate: r.value.vacFechaInicio, days: Number(r.value.vacDiasVacaciones) });
  });
  if (Object.keys(errors).length) return badInput(errors);
  const twice = repeatedLine(lines);
  return twice ? badInput(twiceText(twice)) : { ok: true, value: lines };
}

/** The body of POST /vacaciones/plan/reservar: the responsible's e-mail and the lines. */
export function parsePlanBookingInput(body: unknown): Parsed<{ email: string; lines: PlanLine[] }> {
  const raw = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const email = validate(planBookingBody.pick({ emailUserResponsable: true }), new Fields(raw));
  const named = Object.keys(raw).filter((k) => k.toLowerCase() === 'lineas');
  const lines = named.length > 1 ? badInput({ lineas: repeatedField('lineas') }) : parsePlanLines(raw[named[0] ?? 'lineas']);
  if (!email.ok || !lines.ok) {
    return badInput({
      ...(email.ok ? {} : Object.fromEntries(email.problems)),
      ...(lines.ok ? {} : (lines.errors as Record<string, string>)),
    });
  }
  return { ok: true, value: { email: email.value.emailUserResponsable, lines: lines.value } };
}

/** Why one line is refused, in the sentences the add gives for the same refusal. */
export const lineReasons = (documentNumber: string, failure: LineFailure): string[] =>
  refusalWords(failure, 'create', { documentNumber }).text;

export const PLAN_REFUSED = 'No se puede reservar el plan';

/** A plan refused, or a booking that could not be made: status, message and the errors keyed by the line at fault. */
export function planBookingRefusal(f: Exclude<PlanBookingOutcome, { ok: true }>): {
  status: number;
  message: string;
  errors: Record<string, string>;
} {
  switch (f.kind) {
    case 'refused':
      return {
        status: 422,
        message: PLAN_REFUSED,
        errors: Object.fromEntries(
          f.lines.map((l) => [lineKey(l.index), `${l.documentNumber}: ${lineReasons(l.documentNumber, l.failure).join('; ')}`]),
        ),
      };
    case 'repeated':
      return { status: 400, message: MESSAGES.missingData, errors: twiceText(f) };
    case 'busy':
      return { status: 503, message: MESSAGES.busy, errors: { detalle: 'Demasiadas solicitudes a la vez sobre estos trabajadores' } };
  }
}

/** One booked line as the answer shows it. */
export const bookedLineBody = (r: VacationRecord) => ({ numeroDocumento: r.documentNumber, id: r.recordId, ...recordWire(r) });

/** The booked plan: every record, in the order of the lines, and the art. 187 notices of the lines starting too soon. */
export function planBookedBody(
  records: readonly VacationRecord[],
  today: string,
): { registros: ReturnType<typeof bookedLineBody>[]; avisos?: NoticeBody[] } {
  const notices = new Map<string, NoticeBody>();
  for (const r of records) for (const n of noticesField(r.startDate, today).avisos ?? []) notices.set(n.mensaje, n);
  return { registros: records.map(bookedLineBody), ...(notices.size ? { avisos: [...notices.values()] } : {}) };
}

/** The plan booking, the same for the API and the panel: the command, the read-your-writes note, the metric and the log line. */
export class PlanBookingUseCases {
  constructor(
    private readonly deps: {
      planBooking: PlanBooking;
      readSide?: { noteWrite(p: Position): void };
      metrics?: { commandOutcome(command: string, outcome: string): void };
    },
  ) {}

  async book(call: Call, lines: readonly PlanLine[]): Promise<PlanBookingOutcome> {
    const r = await this.deps.planBooking.book(lines, call.actor);
    this.deps.metrics?.commandOutcome('plan', r.ok ? 'ok' : r.kind);
    const who = { responsable: call.user.email, source: call.actor.source };
    if (r.ok) {
      this.deps.readSide?.noteWrite(r.position);
      call.log.info({ action: 'PLAN', registros: r.value.records.length, ...who }, 'annual plan booked');
    } else if (r.kind === 'refused') {
      call.log.warn({ action: 'PLAN', rechazadas: r.lines.map(refusedLog), ...who }, 'annual plan refused');
    }
    return r;
  }
}

const refusedLog = (l: RefusedLine) => ({ linea: l.index, documento: l.documentNumber, motivo: l.failure.kind });
