import { SHARED_PARTS } from '../../caching/worker-file-entry.ts';
import { randomUUID } from 'node:crypto';
import { Option, type Command } from 'commander';
import { ClosureUseCases, closureBody, closureRefusal, huellaOf, type ClosureRequest } from '../../app/closures.ts';
import { Fields } from '../../app/fields.ts';
import { MESSAGES } from '../../app/messages.ts';
import { parseClosureCancelInput, parseClosureCodeInput, parseClosureInput, type ClosureInput } from '../../app/vacation-input.ts';
import { ClosureCommands } from '../../commands/closures.ts';
import type { Actor } from '../../commands/types.ts';
import { commandEvents } from '../../commands/vacation-commands.ts';
import type { Config } from '../../config/config.ts';
import { holidayCalendar } from '../../config/holidays.ts';
import type { Db } from '../../db/types.ts';
import { todayInBogota } from '../../domain/index.ts';
import { pesos } from '../../panel/html.ts';
import { ReferenceRepository } from '../../reference/repository.ts';
import { unknownInScope, workerFilesInScope, workersChangedAmong } from '../../reference/worker-files.ts';
import { openEventStore } from '../../store/open.ts';
import { idsInBlocks, nextRecordIds } from '../../store/record-ids.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { formatTable } from './projections.ts';

/** The interface's parameter names as this command's options, so that a refusal names what to change. */
const OPTION_OF: Record<string, string> = {
  subgerenciaId: '--subgerencia',
  contratoEmpresaId: '--contrato-empresa',
  fechaInicio: '--inicio',
  dias: '--dias',
  laboraSabado: '--sabados',
  huella: '--huella',
  emailUserResponsable: '--responsable',
  motivo: '--motivo',
  idColectiva: '<idColectiva>',
};
const PARAMETER = new RegExp(`\\b(${Object.keys(OPTION_OF).join('|')})\\b`, 'g');

/** A refusal worded by the interface, as one line: its message, then what is wrong with which option. */
function refusal(message: string, errors: Record<string, string> | string[]): CliError {
  const details = new Set<string>();
  for (const [key, text] of Array.isArray(errors) ? errors.map((e) => ['', e] as const) : Object.entries(errors)) {
    const worded = text.replace(PARAMETER, (name) => OPTION_OF[name]!);
    const option = OPTION_OF[key];
    details.add(option === undefined || worded.includes(option) ? worded : `${option}: ${worded}`);
  }
  return new CliError(`${message} (${[...details].join('; ')})`);
}

interface ScopeOptions {
  subgerencia: string[];
  contratoEmpresa?: string;
  inicio: string;
  dias: string;
  sabados?: boolean;
  responsable: string;
  huella?: string;
  json?: boolean;
}

/** The options as the interface's fields: the same validation as the API's and the panel's. */
function closureInput(opts: ScopeOptions, preview: boolean): ClosureInput {
  const parsed = parseClosureInput(
    new Fields({
      ...(opts.subgerencia.length > 0 ? { subgerenciaId: opts.subgerencia.join(',') } : {}),
      ...(opts.contratoEmpresa !== undefined ? { contratoEmpresaId: opts.contratoEmpresa } : {}),
      fechaInicio: opts.inicio,
      dias: opts.dias,
      laboraSabado: opts.sabados ? '1' : '0',
      ...(preview ? { vista: 'previa' } : {}),
      ...(opts.huella !== undefined ? { huella: opts.huella } : {}),
      emailUserResponsable: opts.responsable,
    }),
  );
  if (!parsed.ok) throw refusal(parsed.message, parsed.errors);
  return parsed.value;
}

interface Closures {
  useCases: ClosureUseCases;
  today: () => string;
  /** The administrator the command acts as, through the command line. */
  actorFor(email: string): Promise<Actor>;
}

/** The closure use cases over the configured database and event store, as the service builds them. */
async function withClosures<T>(fn: (c: Closures) => Promise<T>): Promise<T> {
  return withDb(async (db: Db, config: Config) => {
    const store = await openEventStore(config, db);
    try {
      const reference = new ReferenceRepository(db);
      const today = () => config.today ?? todayInBogota(new Date());
      const closures = new ClosureCommands({
        events: commandEvents(store),
        reference: {
          // A company contract's closure may hold every worker's row at once: shared parts keep it small.
          filesInScope: (scope) => workerFilesInScope(db, scope, SHARED_PARTS),
          version: () => reference.version(),
          changedSince: (version, ids) => workersChangedAmong(db, version, ids),
          unknownIn: (scope) => unknownInScope(db, scope),
        },
        calendar: holidayCalendar(config),
        today,
        nextRecordId: idsInBlocks((n) => nextRecordIds(db, n)),
        headPosition: () => store.headPosition(),
      });
      // One run is one request: its events share an id, as those of one API call do.
      const requestId = randomUUID();
      const actorFor = async (email: string): Promise<Actor> => {
        const user = await reference.userByEmail(email);
        if (!user?.isAdmin)
          throw refusal(MESSAGES.userNotFound, { emailUserResponsable: 'No existe un usuario administrador con ese correo' });
        return {
          userId: user.id,
          userEmail: user.email,
          apiKeyId: null,
          apiKeyName: null,
          requestId,
          correlationId: requestId,
          idempotencyKey: null,
          source: 'cli',
          scope: null,
        };
      };
      return await fn({ useCases: new ClosureUseCases({ closures }), today, actorFor });
    } finally {
      await store.close();
    }
  });
}

const requestOf = (input: ClosureInput): ClosureRequest => ({
  scope: input.scope,
  startDate: input.startDate,
  days: input.days,
  worksSaturday: input.worksSaturday,
});

// A plain space, so that the columns can be cut and searched like the rest of the line.
const money = (n: number) => pesos(n).replace(/\s/g, ' ');

const scopeText = (b: ReturnType<typeof closureBody>) =>
  b.colectiva.contratoEmpresaId !== null
    ? `company contract ${b.colectiva.contratoEmpresaId}`
    : `subgerencias ${b.colectiva.subgerencias.join(', ')}`;

/** A preview's or a booking's workers, those left out, the totals and the warnings. */
function printClosure(io: CliIo, b: ReturnType<typeof closureBody>): void {
  if (b.trabajadores.length === 0) io.out('no worker is booked');
  else printLines(io, b);
  if (b.excluidos.length > 0) {
    io.out(`left out (${b.excluidos.length}):`);
    for (const l of formatTable(
      ['DOCUMENT', 'NAME', 'REASON'],
      b.excluidos.map((e) => [e.documentoAsociado, e.nombre, e.mensaje]),
    ))
      io.out(`  ${l}`);
  }
  const t = b.totales;
  io.out(`totals: ${t.trabajadores} workers, ${t.anticipados} with days in advance, ${t.excluidos} left out, value ${money(t.valorTotal)}`);
  for (const n of b.avisos ?? []) io.out(`warning: ${n.mensaje}`);
}

function printLines(io: CliIo, b: ReturnType<typeof closureBody>): void {
  const values = b.trabajadores.map((l) => money(l.vacValorTotal));
  const width = Math.max(...values.map((v) => v.length));
  const lines = formatTable(
    ['DOCUMENT', 'NAME', 'UNTIL', 'CALENDAR DAYS', 'VALUE', 'ADVANCE DAYS', ...(b.idColectiva ? ['CODE'] : [])],
    b.trabajadores.map((l, i) => [
      l.documentoAsociado,
      l.nombre,
      l.vacFechaFinal,
      String(l.vacDiasCalendario),
      values[i]!.padStart(width),
      String(l.diasAnticipados),
      ...(l.vacCodigoPila ? [l.vacCodigoPila] : []),
    ]),
  );
  for (const l of lines) io.out(l);
}

/** The options a preview and a booking share: the closure itself and who decides it. */
function scopeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--subgerencia <id...>', 'the subgerencias that close, one or more ids (or --contrato-empresa)').default(
        [] as string[],
        'none',
      ),
    )
    .option('--contrato-empresa <id>', 'a company contract whose subgerencias all close (or --subgerencia)')
    .requiredOption('--inicio <date>', 'first day of the closure, a business day, as YYYY-MM-DD')
    .requiredOption('--dias <n>', 'business days of vacation each worker takes')
    .option('--sabados', 'Saturdays count as business days')
    .requiredOption('--responsable <email>', 'the administrator of the reference data who decides it')
    .option('--json', 'print the body the API answers instead of tables');
}

/** `vacaciones colectivas`: collective closures (CST art. 187), with the API's and the panel's use cases. */
export function registerClosures(program: Command, io: CliIo): void {
  const colectivas = program
    .command('colectivas')
    .description('collective vacation closures (CST art. 187): preview, book all or nothing, approve or cancel together');

  scopeOptions(colectivas.command('previa'))
    .description('who the closure would book, with their figures, and who it leaves out; writes nothing; the huella on the last line')
    .action(async (opts: ScopeOptions) => {
      const input = closureInput(opts, true);
      await withClosures(async ({ useCases, today, actorFor }) => {
        const request = requestOf(input);
        const r = await useCases.preview(request, await actorFor(input.email));
        if (!r.ok) {
          const w = closureRefusal(r, request);
          throw refusal(w.message, w.errors);
        }
        const body = closureBody(request, r.value, today());
        const huella = huellaOf(r.value.seen);
        if (opts.json) {
          io.out(JSON.stringify({ ...body, huella }, null, 2));
          return;
        }
        io.out(
          `preview of the closure of ${scopeText(body)} from ${input.startDate}, ${input.days} business days` +
            `${input.worksSaturday ? ', Saturdays worked' : ''}: nothing is booked yet`,
        );
        printClosure(io, body);
        io.out('book it as shown with the same options and --huella; if a worker changes before, nothing is booked:');
        // Alone on the last line so scripts can take it with `tail -n 1`.
        io.out(huella);
      });
    });

  scopeOptions(colectivas.command('reservar'))
    .description("book every worker's record at once, or nothing; with --huella, only if no worker changed since that preview")
    .option('--huella <huella>', 'the last line of the preview')
    .action(async (opts: ScopeOptions) => {
      const input = closureInput(opts, false);
      await withClosures(async ({ useCases, today, actorFor }) => {
        const request = requestOf(input);
        const r = await useCases.book(request, await actorFor(input.email), input.seen ?? undefined);
        if (!r.ok) {
          const w = closureRefusal(r, request);
          throw refusal(w.message, w.errors);
        }
        const body = closureBody(request, r.value.preview, today(), r.value);
        if (opts.json) {
          io.out(JSON.stringify(body, null, 2));
          return;
        }
        io.out(`booked the closure of ${scopeText(body)} from ${input.startDate}: ${r.value.records.length} records, pending approval`);
        printClosure(io, body);
        // Alone on the last line so scripts can take it with `tail -n 1`.
        io.out(r.value.closure.closureId);
      });
    });

  colectivas
    .command('aprobar')
    .description('approve every pending record of a closure together')
    .argument('<idColectiva>', 'the closure, as reservar printed it')
    .requiredOption('--responsable <email>', 'the administrator of the reference data who approves it')
    .action(async (id: string, opts: { responsable: string }) => {
      const parsed = parseClosureCodeInput(new Fields({ idColectiva: id, emailUserResponsable: opts.responsable }));
      if (!parsed.ok) throw refusal(parsed.message, parsed.errors);
      await withClosures(async ({ useCases, actorFor }) => {
        const r = await useCases.approve(parsed.value.closureId, await actorFor(parsed.value.email));
        if (!r.ok) {
          const w = closureRefusal(r);
          throw refusal(w.message, w.errors);
        }
        io.out(`approved closure ${r.value.closureId}: ${r.value.codes.length} records`);
      });
    });

  colectivas
    .command('cancelar')
    .description('before its start, delete every pending record of a closure together, with the reason')
    .argument('<idColectiva>', 'the closure, as reservar printed it')
    .requiredOption('--motivo <text>', 'why it is cancelled; kept with every deleted record')
    .requiredOption('--responsable <email>', 'the administrator of the reference data who cancels it')
    .action(async (id: string, opts: { motivo: string; responsable: string }) => {
      const parsed = parseClosureCancelInput(new Fields({ idColectiva: id, motivo: opts.motivo, emailUserResponsable: opts.responsable }));
      if (!parsed.ok) throw refusal(parsed.message, parsed.errors);
      await withClosures(async ({ useCases, actorFor }) => {
        const r = await useCases.cancel(parsed.value.closureId, parsed.value.reason, await actorFor(parsed.value.email));
        if (!r.ok) {
          const w = closureRefusal(r);
          throw refusal(w.message, w.errors);
        }
        io.out(`cancelled closure ${r.value.closureId}: ${r.value.codes.length} records deleted`);
      });
    });
}
