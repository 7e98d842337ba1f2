import type { Queryable } from '../db/types.ts';
import { toNumber } from '../projections/sql.ts';

/**
 * The panel's searches of the reference data. Each is an index lookup or a bounded index range
 * (migration 22 adds the indexes): none walks every worker, whatever the size of the employer.
 */

export interface WorkerHit {
  id: number;
  documentType: string;
  documentNumber: string;
  firstNames: string;
  lastNames: string;
}

/** What the search indexes hold: lower case, accents taken off (as in migration 22). */
const FOLD = `'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun'`;
export const foldName = (s: string) =>
  s
    .normalize('NFC')
    .replace(/[ÁÉÍÓÚÜÑáéíóúüñ]/g, (c) => 'AEIOUUNaeiouun'['ÁÉÍÓÚÜÑáéíóúüñ'.indexOf(c)]!)
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Workers whose document is the text, or whose last names, first names, or first and last names
 * begin with it (without case or accents). Each of the three name searches reads at most `limit`
 * entries of its index in order, so a name shared by every worker costs no more than a rare one.
 */
export async function searchWorkers(q: Queryable, text: string, limit = 20): Promise<WorkerHit[]> {
  const cols = 'id, document_type, document_number, first_names, last_names';
  const folded = foldName(text);
  if (folded === '') return [];
  const byName = (expr: string) => `(SELECT ${cols}, ${expr} AS k FROM ref_workers WHERE ${expr} LIKE $2 ORDER BY ${expr} LIMIT $3)`;
  const r = await q.query<Record<string, unknown>>(
    `SELECT DISTINCT ON (id) ${cols} FROM (
       (SELECT ${cols}, '' AS k FROM ref_workers WHERE document_number = $1)
       UNION ALL ${byName(`lower(translate(last_names, ${FOLD}))`)}
       UNION ALL ${byName(`lower(translate(first_names, ${FOLD}))`)}
       UNION ALL ${byName(`lower(translate(first_names || ' ' || last_names, ${FOLD}))`)}
     ) hits ORDER BY id`,
    [text.trim(), likePrefix(folded), limit],
  );
  return r.rows
    .map((row) => ({
      id: toNumber(row.id),
      documentType: row.document_type as string,
      documentNumber: row.document_number as string,
      firstNames: row.first_names as string,
      lastNames: row.last_names as string,
    }))
    .sort((a, b) =>
      a.documentNumber === text.trim()
        ? -1
        : b.documentNumber === text.trim()
          ? 1
          : `${a.lastNames} ${a.firstNames}`.localeCompare(`${b.lastNames} ${b.firstNames}`, 'es'),
    )
    .slice(0, limit);
}

export interface Subgerencia {
  id: string;
  name: string;
}

export async function subgerencias(q: Queryable): Promise<Subgerencia[]> {
  const r = await q.query<{ id: string; nombre: string }>('SELECT id, nombre FROM ref_subgerencias ORDER BY nombre, id');
  return r.rows.map((row) => ({ id: row.id, name: row.nombre }));
}

export interface CompanyLimit {
  companyContractId: number;
  name: string;
  /** Null: that company contract sets no limit of people away at once. */
  maxPeople: number | null;
}

/** The company contracts of the contracts in a subgerencia, with their limit of people away at once. */
export async function companyLimitsOf(q: Queryable, subgerenciaId: string): Promise<CompanyLimit[]> {
  const r = await q.query<Record<string, unknown>>(
    `SELECT cc.id, cc.name, cc.max_people_on_vacation FROM ref_company_contracts cc
      WHERE cc.id IN (SELECT DISTINCT company_contract_id FROM ref_contracts WHERE subgerencia_id = $1 AND company_contract_id IS NOT NULL)
      ORDER BY cc.id`,
    [subgerenciaId],
  );
  return r.rows.map((row) => ({
    companyContractId: toNumber(row.id),
    name: row.name as string,
    maxPeople: row.max_people_on_vacation == null ? null : toNumber(row.max_people_on_vacation),
  }));
}
