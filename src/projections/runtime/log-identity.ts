import type { Queryable } from '../../db/types.ts';
import { START, comparePositions, positionToString, type EventStore, type Position } from '../../store/types.ts';

/**
 * Which log each projector's checkpoint was read from. A checkpoint is a position in one log: in
 * another (a KurrentDB restored from a backup, a new cluster, the events moved to the other
 * store) it points nowhere, or past the head, where it reads as caught up and every new event
 * is skipped without a word. Created here, beside the read models, rather than by a migration:
 * it is the runners' own record, and a database without it simply has none yet.
 */
export const LOG_TABLE_DDL = `CREATE TABLE IF NOT EXISTS projection_logs (
  name       text PRIMARY KEY,
  identity   text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
)`;

/** A projector's checkpoint belongs to another log than the store's. */
export class LogMismatchError extends Error {
  override name = 'LogMismatchError';
}

/**
 * What names a log: the store and the stream and id of its first event, which no other log
 * shares. Undefined while the log is empty. Once known it never changes, so it is asked once.
 */
export class LogIdentity {
  private known: string | undefined;

  constructor(private readonly store: Pick<EventStore, 'name' | 'readAll' | 'headPosition'>) {}

  async current(): Promise<string | undefined> {
    if (this.known !== undefined) return this.known;
    const [first] = await this.store.readAll({ after: START, limit: 1 });
    if (first) this.known = `${this.store.name}:${first.stream}/${first.id}`;
    return this.known;
  }

  head(): Promise<Position> {
    return this.store.headPosition();
  }
}

export async function recordLog(q: Queryable, name: string, identity: string): Promise<void> {
  await q.query(
    `INSERT INTO projection_logs (name, identity) VALUES ($1, $2)
     ON CONFLICT (name) DO UPDATE SET identity = EXCLUDED.identity, updated_at = now()`,
    [name, identity],
  );
}

const REMEDY =
  'if the read models are to follow this log, rebuild them from it (vacaciones projections rebuild); if not, point the service at the log they were built from';

/**
 * Before a runner reads on from `checkpoint`: a checkpoint past START must belong to this log
 * (the identity recorded with it) and lie within it (not past its head). A checkpoint at START
 * has read nothing, and takes the current log as its own.
 */
export async function checkLog(q: Queryable, log: LogIdentity, name: string, checkpoint: Position): Promise<void> {
  const identity = await log.current();
  const r = await q.query<{ identity: string }>('SELECT identity FROM projection_logs WHERE name = $1', [name]);
  const recorded = r.rows[0]?.identity;
  if (comparePositions(checkpoint, START) > 0) {
    if (recorded !== undefined && recorded !== identity) {
      throw new LogMismatchError(
        `projection ${name}: its checkpoint ${positionToString(checkpoint)} was read from the log ${recorded}, but the event store holds ${identity ?? 'no event'}; ${REMEDY}`,
      );
    }
    const head = await log.head();
    if (comparePositions(checkpoint, head) > 0) {
      throw new LogMismatchError(
        `projection ${name}: its checkpoint ${positionToString(checkpoint)} is past the head ${positionToString(head)} of the log ${identity ?? '(empty)'}${recorded ? ` it was read from (${recorded})` : ''}, as after a restore from an older backup; ${REMEDY}`,
      );
    }
  }
  if (identity !== undefined && recorded !== identity) await recordLog(q, name, identity);
  // A checkpoint at START of an empty log was read from no log yet: what was recorded is past.
  if (identity === undefined && recorded !== undefined) await q.query('DELETE FROM projection_logs WHERE name = $1', [name]);
}
