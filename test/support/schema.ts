import { createHash } from 'node:crypto';
import type { Db } from '../../src/db/types.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);

/**
 * The public schema as the service sees it, one line per object, in a fixed order: every table's
 * columns in their order (type, default, null), constraints, indexes, triggers, sequences, and
 * every function with its signature, settings and a hash of its source. Written from the catalog
 * rather than pg_dump, so that it reads the same on PostgreSQL and PGlite and needs no client.
 */
export async function describeSchema(db: Db): Promise<string> {
  const lines: string[] = [];
  const rows = async (sql: string) => (await db.query<Record<string, string | null>>(sql)).rows;
  for (const r of await rows(`
    SELECT c.relname AS t, a.attname AS col, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull::text AS notnull,
           pg_get_expr(d.adbin, d.adrelid) AS def
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
     WHERE n.nspname = 'public' AND c.relkind = 'r'
     ORDER BY c.relname, a.attnum`))
    lines.push(`column ${r.t}.${r.col} ${r.type}${r.notnull === 'true' ? ' not null' : ''}${r.def ? ` default ${r.def}` : ''}`);
  // Not-null constraints (contype 'n', in the catalog since PostgreSQL 18) are the columns' own.
  for (const r of await rows(`
    SELECT c.relname AS t, k.conname AS name, pg_get_constraintdef(k.oid) AS def
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND k.contype <> 'n' ORDER BY c.relname, k.conname`))
    lines.push(`constraint ${r.t}.${r.name} ${r.def}`);
  for (const r of await rows(`SELECT indexname AS name, indexdef AS def FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname`))
    lines.push(`index ${r.name} ${r.def}`);
  for (const r of await rows(`
    SELECT t.tgname AS name, pg_get_triggerdef(t.oid) AS def FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal ORDER BY t.tgname`))
    lines.push(`trigger ${r.name} ${r.def}`);
  for (const r of await rows(`
    SELECT s.sequencename AS name, s.start_value::text AS start, s.increment_by::text AS step FROM pg_sequences s
     WHERE s.schemaname = 'public' ORDER BY s.sequencename`))
    lines.push(`sequence ${r.name} start ${r.start} by ${r.step}`);
  for (const r of await rows(`
    SELECT p.proname AS name, p.prokind AS kind, pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result,
           l.lanname AS lang, p.provolatile AS volatile, p.proparallel AS parallel, array_to_string(p.proconfig, ', ') AS config,
           p.prosrc AS src, a.aggtransfn::regproc::text AS sfunc, format_type(a.aggtranstype, NULL) AS stype
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
      LEFT JOIN pg_aggregate a ON a.aggfnoid = p.oid
     WHERE n.nspname = 'public' ORDER BY p.proname, args`)) {
    const body =
      r.kind === 'a' ? `sfunc ${r.sfunc} stype ${r.stype}` : `${r.lang} ${r.volatile}${r.parallel} source ${sha256(r.src ?? '')}`;
    lines.push(`function ${r.name}(${r.args}) ${r.result} ${body}${r.config ? ` set ${r.config}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
