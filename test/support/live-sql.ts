import type { Db } from '../../src/db/types.ts';

/** The body of the function `name` a live file creates: what PostgreSQL keeps as its source. */
export function bodyOf(live: string, name: string): string {
  const from = live.indexOf(`FUNCTION ${name}(`);
  const tag = /\$[a-z]*\$/.exec(live.slice(from))!;
  const start = from + tag.index + tag[0].length;
  return live.slice(start, live.indexOf(tag[0], start));
}

/** The source of every function named `name` in the database (one, unless it was overloaded). */
export async function sourcesOf(db: Db, name: string): Promise<string[]> {
  const r = await db.query<{ prosrc: string }>('SELECT prosrc FROM pg_proc WHERE proname = $1', [name]);
  return r.rows.map((row) => row.prosrc);
}
