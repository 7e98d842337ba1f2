import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { Transform, pipeline } from 'node:stream';
import type { Command } from 'commander';
import type { BundleSelection } from '../../integrity/bundle.ts';
import { againstKept, keptLine, parseKeptLine, verifyBundle } from '../../integrity/bundle-verify.ts';
import { ExportUnsupportedError, exportBundle, NothingSelectedError } from '../../integrity/export.ts';
import { anchorLine, checkAnchor, latestAnchor, parseAnchorLine, recordAnchor } from '../../integrity/anchor.ts';
import { describeBreak } from '../../integrity/chain-check.ts';
import { workerOf, workerStreams } from '../../integrity/scope.ts';
import { verifyChains, type VerifyReport, type VerifyScope } from '../../integrity/verify.ts';
import type { Db } from '../../db/types.ts';
import { openEventStore } from '../../store/open.ts';
import type { EventStore } from '../../store/types.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { phaseBar } from '../progress.ts';
import { openBundleFile, parseAsOf } from './replay.ts';

/** Breaks listed one per line; beyond them, a count. */
const LISTED_BREAKS = 20;

interface ScopeOptions {
  documento?: string;
  stream?: string[];
  all?: boolean;
}

function chosenScopes(opts: ScopeOptions): number {
  return [opts.documento !== undefined, (opts.stream?.length ?? 0) > 0, opts.all === true].filter(Boolean).length;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Fewest events, and a second at least, over which a verification's rate is shown. */
const MEASURED_EVENTS = 1000;

/** Prints a verification's outcome; the first break, as the command's failure, or undefined. */
export function reportVerification(io: CliIo, what: string, r: VerifyReport): string | undefined {
  const secs = r.ms / 1000;
  // A rate measured over a few events or a fraction of a second says nothing of the speed.
  const rate = r.events >= MEASURED_EVENTS && secs >= 1 ? ` (${Math.round(r.events / secs)} events/s)` : '';
  const figures = `${r.events} events in ${r.streams} streams in ${secs.toFixed(1)} s${rate}`;
  if (r.breaks.length === 0) {
    io.out(`verified ${what}: ${figures}: every chain holds`);
    return undefined;
  }
  for (const b of r.breaks.slice(0, LISTED_BREAKS)) io.out(`BROKEN ${describeBreak(b)}`);
  if (r.breaks.length > LISTED_BREAKS) io.out(`... and ${r.breaks.length - LISTED_BREAKS} more broken streams`);
  io.out(`verified ${what}: ${figures}: ${r.breaks.length} broken`);
  return `hash chain broken: ${describeBreak(r.breaks[0]!)}`;
}

/** Prints whether an anchor still holds; its failure, or undefined. */
async function reportAnchor(
  io: CliIo,
  store: EventStore,
  db: Db,
  kept: { root: string; position: string },
  recorded?: string,
): Promise<string | undefined> {
  const r = await checkAnchor(store, kept);
  const which = `anchor ${kept.root} at ${kept.position}${recorded ? ` (${recorded})` : ''}`;
  if (r.holds) {
    io.out(`${which}: holds`);
    return undefined;
  }
  const failure = `${which}: the heads at that position have another root now: expected ${kept.root}, found ${r.root}`;
  io.out(`BROKEN ${failure}`);
  return failure;
}

/** Verifies a bundle file and prints what it found; its first failure, or undefined. */
async function reportBundle(io: CliIo, file: string, kept?: { root?: string; digest?: string }): Promise<string | undefined> {
  const bar = phaseBar(io);
  const input = await openBundleFile(file);
  // The progress is that of the file read: the events in it are counted only at its end.
  const size = (await stat(file)).size;
  let read = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      done(null, chunk);
    },
  });
  pipeline(input, counted, () => {});
  let report;
  try {
    report = await verifyBundle(counted, (n) => {
      if (n % 10_000 === 0) bar.update('verify', Math.round(read / 1024), Math.round(size / 1024), 'kB');
    });
  } finally {
    bar.stop();
  }
  const m = report.manifest;
  if (m) {
    const what =
      m.selection.kind === 'all'
        ? 'every stream'
        : m.selection.kind === 'documento'
          ? `document ${m.selection.documento}`
          : `subgerencia ${m.selection.subgerencia}`;
    io.out(
      `bundle ${file}: ${what}${m.asOf ? ` as of ${m.asOf}` : ''}, exported ${m.exportedAt} by ${m.service.name} ${m.service.version}`,
    );
  }
  const broken = reportVerification(
    io,
    `bundle ${file} (${report.workers} workers, root ${report.root}, digest ${report.digest ?? 'none'})`,
    report,
  );
  // The bundle rewritten whole (chains, heads and end record recomputed) holds by itself; not against what was kept apart.
  if (kept) report.problems.push(...againstKept(report, kept));
  for (const n of report.notes) io.out(`NOTE ${n}`);
  for (const p of report.problems) io.out(`PROBLEM ${p}`);
  return broken ?? (report.problems.length > 0 ? `the bundle does not hold: ${report.problems[0]}` : undefined);
}

export function registerAudit(program: Command, io: CliIo): void {
  const audit = program
    .command('audit')
    .description('tamper-evident history: verify the hash chains of the streams, anchor their heads, export bundles for auditors');

  audit
    .command('verify')
    .description("recompute the streams' hash chains and report the first broken link of each; exit 1 on any break")
    .option('--documento <number>', "a worker's streams: its vacations, its audit records and its PILA codes")
    .option('--stream <name>', 'one stream (repeatable)', collect)
    .option('--all', 'every stream (the default), and the newest anchor recorded')
    .option('--anchor <line>', 'only this anchor: the line `audit anchor` printed, or <root>@<position>')
    .option(
      '--bundle <file>',
      'an audit bundle (audit export) instead of the database: its chains, heads, counts, root and digest; needs no database',
    )
    .option(
      '--root <line>',
      'with --bundle: the root and digest kept from when it was made (the line audit export printed, or a root alone), ' +
        'which it must still have',
    )
    .action(async (opts: ScopeOptions & { anchor?: string; bundle?: string; root?: string }) => {
      const keptFromExport = opts.root === undefined ? undefined : parseKeptLine(opts.root);
      if (opts.root !== undefined && opts.bundle === undefined) throw new CliError('--root is the root of a bundle: it goes with --bundle');
      if (opts.root !== undefined && !keptFromExport) throw new CliError(`--root ${opts.root} names no root or digest (64 hex digits)`);
      if (opts.bundle !== undefined) {
        if (chosenScopes(opts) > 0 || opts.anchor !== undefined)
          throw new CliError('--bundle checks the bundle alone: it takes no --documento, --stream, --all or --anchor');
        const failure = await reportBundle(io, opts.bundle, keptFromExport);
        if (failure) throw new CliError(failure);
        return;
      }
      if (chosenScopes(opts) > 1) throw new CliError('choose one of --documento, --stream and --all');
      const kept = opts.anchor === undefined ? undefined : parseAnchorLine(opts.anchor);
      if (opts.anchor !== undefined && !kept)
        throw new CliError(`--anchor ${opts.anchor} names no root and position (<64 hex digits>@<commit>/<prepare>)`);
      if (kept && chosenScopes(opts) > 0) throw new CliError('--anchor checks one anchor: it takes no --documento, --stream or --all');
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        try {
          if (kept) {
            const failure = await reportAnchor(io, store, db, kept);
            if (failure) throw new CliError(failure);
            return;
          }
          let scope: VerifyScope = { all: true };
          let what = 'every stream';
          if (opts.documento !== undefined) {
            const workerId = await workerOf(db, opts.documento);
            if (workerId === undefined) throw new CliError(`no worker with document ${opts.documento}`);
            scope = { streams: await workerStreams(store, workerId) };
            what = `worker ${workerId} (document ${opts.documento})`;
          } else if (opts.stream?.length) {
            scope = { streams: opts.stream };
            what = opts.stream.join(', ');
          }
          const bar = phaseBar(io);
          const report = await verifyChains(store, scope, (p) => bar.update('verify', p.done, p.total, 'events'));
          bar.stop();
          const failures = [reportVerification(io, what, report)];
          if (scope.all) {
            const latest = await latestAnchor(store);
            if (latest) failures.push(await reportAnchor(io, store, db, latest.anchor, `recorded ${latest.anchor.anchoredAt}`));
          }
          const failure = failures.find((f) => f !== undefined);
          if (failure) throw new CliError(failure);
        } finally {
          await store.close();
        }
      });
    });

  audit
    .command('export')
    .description("a self-contained bundle of a selection's streams, to verify and replay with no database (gzip JSON lines; docs/audit.md)")
    .option('--documento <number>', "a worker's streams: its vacations, its audit records and its PILA codes")
    .option('--subgerencia <id>', 'the streams of every worker with a contract in the subgerencia, and its occupancy streams')
    .option('--all', 'every stream')
    .option('--as-of <time>', 'each stream as it stood at this ISO time (a bare date: the end of that day in Bogotá)')
    .requiredOption('--out <file>', 'where to write the bundle')
    .action(async (opts: { documento?: string; subgerencia?: string; all?: boolean; asOf?: string; out: string }) => {
      const chosen = [opts.documento !== undefined, opts.subgerencia !== undefined, opts.all === true].filter(Boolean).length;
      if (chosen !== 1) throw new CliError('choose one of --documento, --subgerencia and --all');
      const selection: BundleSelection =
        opts.documento !== undefined
          ? { kind: 'documento', documento: opts.documento }
          : opts.subgerencia !== undefined
            ? { kind: 'subgerencia', subgerencia: opts.subgerencia }
            : { kind: 'all' };
      const asOf = opts.asOf === undefined ? undefined : parseAsOf(opts.asOf);
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        // Written beside the target and renamed when whole: a failed export leaves no bundle behind.
        const partial = `${opts.out}.partial`;
        const bar = phaseBar(io);
        const t0 = performance.now();
        const file = createWriteStream(partial);
        try {
          const end = await exportBundle(store, file, {
            selection,
            asOf,
            onProgress: (p) => bar.update('export', p.done, p.total, 'events'),
          });
          bar.stop();
          await rename(partial, opts.out);
          const secs = (performance.now() - t0) / 1000;
          io.out(
            `exported ${end.events} events in ${end.streams} streams (${end.workers} workers) to ${opts.out} ` +
              `in ${secs.toFixed(1)} s: ${keptLine(end)}`,
          );
        } catch (err) {
          bar.stop();
          file.destroy();
          await rm(partial, { force: true });
          if (err instanceof NothingSelectedError || err instanceof ExportUnsupportedError) throw new CliError(err.message);
          throw err;
        } finally {
          await store.close();
        }
      });
    });

  audit
    .command('anchor')
    .description('the Merkle root of every stream head, printed and recorded in the anchors stream: keep the line')
    .action(async () => {
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        try {
          io.out(anchorLine(await recordAnchor(store)));
        } finally {
          await store.close();
        }
      });
    });
}
