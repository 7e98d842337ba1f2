import type { Queryable } from '../db/types.ts';

/**
 * The panel's searches of the reference data. Each is an index lookup or a bounded index range
 * (migrations.ts creates the indexes): none walks every worker, whatever the size of the employer.
 */

export interface WorkerHit {
  id: number;
  documentType: string;
  documentNumber: string;
  firstNames: string;
  lastNames: string;
}

export interface WorkerSearch {
  /** At most the limit asked for: the document typed first, then documents, then names. */
  hits: WorkerHit[];
  /** More workers match than the hits shown. */
  more: boolean;
}

/** What the search indexes hold: lower case, accents taken off (as the indexes of migrations.ts). */
const FOLD = `'ÁÉÍÓÚÜÑáéíóúüñ', 'AEIOUUNaeiouun'`;
export const foldName = (s: string) =>
  s
    .normalize('NFC')
    .replace(/[ÁÉÍÓÚÜÑáéíóúüñ]/g, (c) => 'AEIOUUNaeiouun'['ÁÉÍÓÚÜÑáéíóúüñ'.indexOf(c)]!)
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
/** What a document number may be (the reference data's rule): anything else is searched as a name only. */
const DOCUMENT_RE = /^[0-9A-Za-z]{1,20}$/;

/** How a hit was found, in the order the list shows them. */
const EXACT_DOCUMENT = 0;
const DOCUMENT_PREFIX = 1;
const NAME = 2;

/**
 * Workers whose document is the text or begins with it, or whose last names, first names, or
 * first and last names begin with it (without case or accents). Each range is read from its
 * index in the index's own order (`USING ~<~`, the order of the text_pattern_ops indexes; a plain
 * ORDER BY would make the database read every match and sort them), at most `limit + 1` entries,
 * so a name shared by every worker costs no more than a rare one, and whether there are more
 * than `limit` is known without counting them.
 */
export async function searchWorkers(q: Queryable, text: string, limit = 20): Promise<WorkerSearch> {
  const cols = 'id, document_type, document_number, first_names, last_names';
  const typed = text.trim();
  const folded = foldName(text);
  if (folded === '') return { hits: [], more: false };
  const range = (expr: string, pattern: string, rank: number) =>
    `(SELECT ${cols}, ${rank} AS rank FROM ref_workers WHERE ${expr} LIKE ${pattern} ORDER BY ${expr} USING ~<~ LIMIT $4)`;
  const name = (expr: string) => range(`lower(translate(${expr}, ${FOLD}))`, '$3', NAME);
  const r = await q.query<Record<string, unknown>>(
    `SELECT DISTINCT ON (id) ${cols}, rank FROM (
       (SELECT ${cols}, ${EXACT_DOCUMENT} AS rank FROM ref_workers WHERE document_number = $1)
       UNION ALL ${range('document_number', '$2', DOCUMENT_PREFIX)}
       UNION ALL ${name('last_names')}
       UNION ALL ${name('first_names')}
       UNION ALL ${name(`first_names || ' ' || last_names`)}
     ) hits ORDER BY id, rank`,
    [typed, DOCUMENT_RE.test(typed) ? likePrefix(typed) : null, likePrefix(folded), limit + 1],
  );
  const found = r.rows
    .map((row) => ({
      rank: Number(row.rank),
      hit: {
        id: Number(row.id),
        documentType: row.document_type as string,
        documentNumber: row.document_number as string,
        firstNames: row.first_names as string,
        lastNames: row.last_names as string,
      },
    }))
    .sort(
      (a, b) =>
        a.rank - b.rank ||
        (a.rank === DOCUMENT_PREFIX
          ? a.hit.documentNumber.localeCompare(b.hit.documentNumber)
          : `${a.hit.lastNames} ${a.hit.firstNames}`.localeCompare(`${b.hit.lastNames} ${b.hit.firstNames}`, 'es')),
    );
  return { hits: found.slice(0, limit).map((f) => f.hit), more: found.length > limit };
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
    companyContractId: Number(row.id),
    name: row.name as string,
    maxPeople: row.max_people_on_vacation == null ? null : Number(row.max_people_on_vacation),
  }));
}
