import type { Command } from 'commander';
import { anchorLine, checkAnchor, latestAnchor, parseAnchorLine, recordAnchor } from '../../audit/anchor.ts';
import { describeBreak } from '../../audit/chain-check.ts';
import { workerOf, workerStreams } from '../../audit/scope.ts';
import { verifyChains, type VerifyReport, type VerifyScope } from '../../audit/verify.ts';
import type { Db } from '../../db/types.ts';
import { openEventStore } from '../../store/open.ts';
import type { EventStore } from '../../store/types.ts';
import { CliError, withDb, type CliIo } from '../context.ts';
import { phaseBar } from '../progress.ts';

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

/** Prints a verification's outcome; the first break, as the command's failure, or undefined. */
export function reportVerification(io: CliIo, what: string, r: VerifyReport): string | undefined {
  const secs = r.ms / 1000;
  const rate = Math.round(r.events / Math.max(secs, 0.001));
  const figures = `${r.events} events in ${r.streams} streams in ${secs.toFixed(1)} s (${rate} events/s)`;
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
  const r = await checkAnchor(store, db, kept);
  const which = `anchor ${kept.root} at ${kept.position}${recorded ? ` (${recorded})` : ''}`;
  if (r.holds) {
    io.out(`${which}: holds`);
    return undefined;
  }
  const failure = `${which}: the heads at that position have another root now: expected ${kept.root}, found ${r.root}`;
  io.out(`BROKEN ${failure}`);
  return failure;
}

export function registerAudit(program: Command, io: CliIo): void {
  const audit = program.command('audit').description('tamper-evident history: verify the hash chains of the streams, anchor their heads');

  audit
    .command('verify')
    .description("recompute the streams' hash chains and report the first broken link of each; exit 1 on any break")
    .option('--documento <number>', "a worker's streams: its vacations, its audit records and its PILA codes")
    .option('--stream <name>', 'one stream (repeatable)', collect)
    .option('--all', 'every stream (the default), and the newest anchor recorded')
    .option('--anchor <line>', 'only this anchor: the line `audit anchor` printed, or <root>@<position>')
    .action(async (opts: ScopeOptions & { anchor?: string }) => {
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
          const report = await verifyChains(store, db, scope, (p) => bar.update('verify', p.done, p.total, 'events'));
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
    .command('anchor')
    .description('the Merkle root of every stream head, printed and recorded in the anchors stream: keep the line')
    .action(async () => {
      await withDb(async (db, config) => {
        const store = await openEventStore(config, db);
        try {
          io.out(anchorLine(await recordAnchor(store, db)));
        } finally {
          await store.close();
        }
      });
    });
}
