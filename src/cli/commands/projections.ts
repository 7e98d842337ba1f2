import type { Command } from 'commander';
import {
  RebuildBusyError,
  UnknownProjectorError,
  projectionOverview,
  rebuild,
  selectProjectors,
  type RebuildProgress,
} from '../../projections/index.ts';
import { openEventStore } from '../../store/open.ts';
import { positionToString } from '../../store/types.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { stopWithCaller } from '../lifeline.ts';
import { phaseBar } from '../progress.ts';

/** Left-aligned columns, numbers right-aligned, two spaces apart. */
export function formatTable(headers: string[], rows: string[][]): string[] {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const numeric = headers.map((_, i) => rows.length > 0 && rows.every((r) => /^-?\d+(\.\d+)?$/.test(r[i] ?? '')));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}

const PROGRESS_LINE_MS = 3000;

/** A bar with rate and ETA on a terminal; on a pipe or log, a plain line every few seconds. */
function progressReporter(io: CliIo) {
  const bar = phaseBar(io);
  let lastLine = 0;
  const rate = (p: RebuildProgress) => Math.round(p.done / Math.max(p.elapsedMs / 1000, 0.001));
  return {
    update(p: RebuildProgress) {
      if (bar.drawn) {
        bar.update(p.phase, p.done, p.total, 'events', rate(p));
        return;
      }
      const now = Date.now();
      if (now - lastLine < PROGRESS_LINE_MS && p.done < p.total) return;
      lastLine = now;
      const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 100;
      const r = rate(p);
      const eta = r > 0 ? Math.ceil(Math.max(p.total - p.done, 0) / r) : 0;
      io.err(`rebuild ${p.phase}: ${p.done}/${p.total} events (${pct}%), ${r} events/s, ETA ${eta} s`);
    },
    done() {
      bar.stop();
    },
  };
}

export function registerProjections(program: Command, io: CliIo): void {
  const projections = program.command('projections').description('read models: where they are and rebuilding them');

  projections
    .command('status')
    .description('checkpoint, lag behind the event store and state of each read model')
    .action(async () => {
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        try {
          const rows = await projectionOverview(db, store);
          const table = formatTable(
            ['NAME', 'CHECKPOINT', 'HEAD', 'LAG', 'STATE'],
            rows.map((r) => [r.name, positionToString(r.checkpoint), positionToString(r.head), String(r.lag), r.state]),
          );
          for (const l of table) io.out(l);
        } finally {
          await store.close();
        }
      });
    });

  projections
    .command('rebuild')
    .description('replay every event into fresh tables and swap them in; the live ones keep serving meanwhile')
    .argument('[names...]', 'read models to rebuild (all when none)')
    .action(async (names: string[]) => {
      stopWithCaller(io, 'rebuild');
      try {
        selectProjectors(names);
      } catch (err) {
        if (err instanceof UnknownProjectorError) throw new CliError(err.message);
        throw err;
      }
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        const progress = progressReporter(io);
        try {
          const r = await rebuild(db, store, names, { onProgress: (p) => progress.update(p) }).catch((err: unknown) => {
            throw err instanceof RebuildBusyError ? new CliError(err.message) : err;
          });
          progress.done();
          const secs = r.durationMs / 1000;
          const rate = Math.round(r.events / Math.max(secs, 0.001));
          io.out(
            `rebuilt ${r.projectors.join(', ')}: ${r.events} events of the types they handle in ${secs.toFixed(1)} s (${rate} events/s)`,
          );
        } finally {
          progress.done();
          await store.close();
        }
      });
    });
}
