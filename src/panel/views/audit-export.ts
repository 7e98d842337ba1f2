import type { Readable } from 'node:stream';
import { csvTable, xlsxTable, type Cell } from '../../app/book-formats.ts';
import { col, type PeopleLayout } from '../../app/people-formats.ts';
import { positionToString } from '../../app/ports.ts';
import { bogotaTime } from '../html.ts';
import { describe, liveSummary, through, type ActionStep, type Meta } from './audit-steps.ts';

/**
 * A worker's history as an auditor hands it on: one line per action, as the page shows them (an
 * edit is one line), who, when and what in Spanish, the state it left; the technical detail (the
 * events, their streams and positions, the request, the data as stored) in the last columns. The
 * JSON export keeps every event as stored, for programs.
 */
export const AUDIT_FOR_PEOPLE: PeopleLayout = {
  columns: [
    col('Paso', 'int', 7),
    col('Fecha y hora (Bogotá)', 'text', 20),
    col('Qué', 'text', 70),
    col('Quién', 'text', 28),
    col('Por dónde', 'text', 20),
    col('Códigos PILA', 'text', 38),
    col('Registros vigentes después', 'int', 14),
    col('Días hábiles tomados después', 'int', 14),
    col('Detalle técnico: eventos', 'text', 60),
    col('Detalle técnico: solicitud', 'text', 38),
    col('Detalle técnico: datos', 'text', 80),
  ],
};

/** An action's line, in AUDIT_FOR_PEOPLE's columns. */
export function auditLine(step: ActionStep): Cell[] {
  const meta = step.stored.metadata as Meta;
  const live = liveSummary(step.state);
  return [
    step.n,
    bogotaTime(step.stored.recordedAt),
    describe(step.event, step.stored),
    meta.userEmail ?? '—',
    through(meta),
    step.codes.join(', '),
    live.records,
    live.businessDays,
    step.parts
      .map((p) => `${p.stored.type} (${p.stored.stream}, revisión ${p.stored.revision}, posición ${positionToString(p.stored.position)})`)
      .join('; '),
    meta.requestId ?? '',
    JSON.stringify(step.parts.map((p) => p.stored.data)),
  ];
}

/** The history as a CSV (`;`, UTF-8 with a BOM) or an XLSX (a sheet with a frozen header and filters) for people. */
export function auditForPeople(steps: readonly ActionStep[], format: 'csv' | 'xlsx', onError: (err: unknown) => void): Readable {
  async function* groups() {
    yield steps.map(auditLine);
  }
  const labels = AUDIT_FOR_PEOPLE.columns.map((c) => c.label);
  return format === 'csv'
    ? csvTable(labels, groups(), onError, AUDIT_FOR_PEOPLE)
    : xlsxTable('Historia', labels, groups(), onError, undefined, AUDIT_FOR_PEOPLE);
}
