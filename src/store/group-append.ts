import type { Queryable } from '../db/types.ts';
import { Gatherer, type Asked } from './gather.ts';
import { DuplicateEventIdError, type AppendResult, type ExpectedRevision, type StreamWrite } from './types.ts';

interface GroupRow {
  out_append: number;
  out_stream: string | null;
  out_revision: string | null;
  out_position: string | null;
  out_tx: string | null;
  out_status: 'ok' | 'replayed' | 'conflict' | 'duplicate';
}

/** What one append of a group came to, as rows of vac_append_batch. */
export type GroupOutcome =
  | { status: 'ok' | 'replayed'; rows: { out_stream: string; out_revision: string; out_position: string | null; out_tx: string | null }[] }
  | { status: 'conflict'; stream: string; actual: number }
  | { status: 'duplicate'; error: DuplicateEventIdError };

interface Pending {
  writes: StreamWrite[];
  args: AppendArguments;
}

export interface GroupAppenderOptions {
  /** Groups on their way to the database at once (each on a connection of its own). */
  maxInFlight?: number;
  /** Appends per group at most. */
  maxGroup?: number;
}

/**
 * Appends asked for while others are on their way to the database go together as one call of
 * vac_append_batch: one transaction, one commit and one round trip for the group, where separate
 * appends would each pay for their own and contend for the same stream rows (a subgerencia's
 * month streams above all). Every append still gets its own answer: its result, or the conflict
 * or duplicate that refused it alone. Should the group's call fail as a whole (a deadlock with
 * another process, an event id stored meanwhile by a concurrent retry), it wrote nothing, and
 * each append of it is made again on its own.
 */
export class GroupAppender {
  private readonly groups: Gatherer<Pending, AppendResult>;

  constructor(
    private readonly q: Queryable,
    /** One append on its own (vac_append), with its own error handling. */
    private readonly single: (writes: StreamWrite[], args: AppendArguments) => Promise<AppendResult>,
    /** Turns one append's outcome into its result or error. */
    private readonly settle: (writes: StreamWrite[], outcome: GroupOutcome) => Promise<AppendResult>,
    opts: GroupAppenderOptions = {},
  ) {
    this.groups = new Gatherer((group) => this.run(group), opts.maxInFlight ?? 2, opts.maxGroup ?? 100, apart);
  }

  append(writes: StreamWrite[]): Promise<AppendResult> {
    // Refused here, before it can share a group: what vac_append itself would refuse.
    return this.groups.ask({ writes, args: appendArguments(writes) });
  }

  private async run(group: Asked<Pending, AppendResult>[]): Promise<void> {
    if (group.length === 1) {
      const [p] = group;
      await this.single(p!.item.writes, p!.item.args).then(p!.resolve, p!.reject);
      return;
    }
    let rows: GroupRow[];
    try {
      const args = group.map((p) => p.item.args);
      const all = <K extends keyof (typeof args)[number]>(k: K) => args.flatMap((a) => a[k] as unknown[]);
      rows = (
        await this.q.query<GroupRow>(
          `SELECT * FROM vac_append_batch($1::int[], $2::text[], $3::bigint[], $4::int[], $5::uuid[], $6::text[], $7::int[],
                                          ${jsonbArray(8)}, ${jsonbArray(9)})`,
          [
            args.map((a) => a.streams.length),
            all('streams'),
            all('expected'),
            all('counts'),
            all('ids'),
            all('types'),
            all('versions'),
            JSON.stringify(all('data')),
            JSON.stringify(all('meta')),
          ],
          { prepare: true },
        )
      ).rows;
    } catch {
      // Nothing of the group was written: each append on its own, with its own outcome.
      await Promise.all(group.map((p) => this.single(p.item.writes, p.item.args).then(p.resolve, p.reject)));
      return;
    }
    const byAppend = new Map<number, GroupRow[]>();
    for (const r of rows) {
      const list = byAppend.get(Number(r.out_append));
      if (list) list.push(r);
      else byAppend.set(Number(r.out_append), [r]);
    }
    await Promise.all(
      group.map(async (p, i) => {
        const own = byAppend.get(i + 1) ?? [];
        const first = own[0];
        let outcome: GroupOutcome;
        if (first?.out_status === 'conflict')
          outcome = { status: 'conflict', stream: first.out_stream!, actual: Number(first.out_revision) };
        else if (first?.out_status === 'duplicate') {
          outcome = {
            status: 'duplicate',
            error: new DuplicateEventIdError(`${first.out_revision} of ${first.out_position} event ids are already stored`),
          };
        } else {
          outcome = {
            status: first?.out_status === 'replayed' ? 'replayed' : 'ok',
            rows: own.map((r) => ({
              out_stream: r.out_stream!,
              out_revision: r.out_revision!,
              out_position: r.out_position,
              out_tx: r.out_tx,
            })),
          };
        }
        await this.settle(p.item.writes, outcome).then(p.resolve, p.reject);
      }),
    );
  }
}

/**
 * Whether two shares of the appends waiting touch no stream in common, so that they may go as two
 * groups side by side: appends to one stream go in one group, in the order asked, each seeing the
 * writes of those before it.
 */
function apart(first: readonly Pending[], rest: readonly Pending[]): boolean {
  const streams = new Set(first.flatMap((p) => p.args.streams));
  return !rest.some((p) => p.args.streams.some((s) => streams.has(s)));
}

/**
 * The jsonb[] argument of the append functions from parameter `$n`, one JSON array of them all:
 * one JSON.stringify and one parse on the server, where an array parameter would have every
 * payload escaped in JavaScript (most of an import's time in the client) and unescaped again.
 */
export const jsonbArray = (n: number): string =>
  `ARRAY(SELECT e FROM jsonb_array_elements($${n}::jsonb) WITH ORDINALITY AS t(e, i) ORDER BY i)`;

/**
 * jsonbArray's argument and parameter for values that are often all the same (the metadata of an
 * import's events): then one copy travels and is parsed once, and the server repeats it.
 */
export function repeatedJsonbArray(values: readonly object[], n: number): { sql: string; param: string } {
  const texts = values.map((v) => JSON.stringify(v));
  if (texts.length > 1 && texts.every((t) => t === texts[0]))
    return { sql: `array_fill($${n}::jsonb, ARRAY[${texts.length}])`, param: texts[0]! };
  return { sql: jsonbArray(n), param: `[${texts.join(',')}]` };
}

/**
 * An append as the arrays vac_append and vac_append_batch take (payloads and metadata as objects,
 * sent as JSON arrays: jsonbArray); refuses what they cannot take.
 */
export type AppendArguments = ReturnType<typeof appendArguments>;

export function appendArguments(writes: StreamWrite[]) {
  const events = writes.flatMap((w) => w.events);
  // As KurrentDB's multi-stream append: one write per stream.
  if (new Set(writes.map((w) => w.stream)).size !== writes.length) throw new Error('an append names the same stream twice');
  if (new Set(events.map((e) => e.id)).size !== events.length) {
    throw new DuplicateEventIdError('an append names the same event id twice');
  }
  return {
    streams: writes.map((w) => w.stream),
    expected: writes.map((w) => encodeExpected(w.expectedRevision)),
    counts: writes.map((w) => w.events.length),
    ids: events.map((e) => e.id),
    types: events.map((e) => e.type),
    versions: events.map((e) => e.version ?? 1),
    data: events.map((e) => e.data),
    meta: events.map((e) => e.metadata ?? {}),
  };
}

function encodeExpected(expected: ExpectedRevision): number {
  switch (expected) {
    case 'no_stream':
      return -1;
    case 'any':
      return -2;
    case 'stream_exists':
      return -3;
    default:
      if (!Number.isSafeInteger(expected) || expected < 0) throw new RangeError(`expected revision ${expected} is not valid`);
      return expected;
  }
}
