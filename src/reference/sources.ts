import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { JsonRowWalker, JsonSyntaxError, type Found } from './json-rows.ts';
import { SECTION_NAMES, shown, type SectionName } from './schema.ts';

/**
 * What an import reads, one item at a time whatever the size of the input: a row of a section
 * with its index among that section's rows (and its line in an NDJSON file), or a problem with
 * the input's shape that no row can carry.
 */
export type SourceItem =
  { kind: 'row'; section: SectionName; index: number; line?: number; value: unknown } | { kind: 'problem'; text: string };

export type Source = AsyncIterable<SourceItem>;

/** The input cannot be read as JSON at all (as opposed to rows that break the format's rules). */
export class SourceSyntaxError extends Error {
  override name = 'SourceSyntaxError';
}

const SECTIONS = new Set<string>(SECTION_NAMES);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The rows of an object in memory, in the import's JSON format. */
export async function* objectSource(input: unknown): Source {
  if (!isRecord(input)) {
    yield { kind: 'problem', text: `file: expected an object, got ${shown(input)}` };
    return;
  }
  for (const [key, value] of Object.entries(input)) yield* sectionItems(key, value);
}

function* sectionItems(key: string, value: unknown): Generator<SourceItem> {
  if (!SECTIONS.has(key)) {
    yield { kind: 'problem', text: `file: unknown field ${JSON.stringify(key)}` };
  } else if (!Array.isArray(value)) {
    if (value !== undefined) yield { kind: 'problem', text: `${key}: expected an array, got ${shown(value)}` };
  } else {
    for (let index = 0; index < value.length; index++) yield { kind: 'row', section: key as SectionName, index, value: value[index] };
  }
}

/** Reports the bytes read so far, for a progress bar. */
export type OnBytes = (bytes: number) => void;

function fileStream(path: string, onBytes?: OnBytes) {
  const stream = createReadStream(path, { highWaterMark: 1 << 20 });
  if (onBytes) stream.on('data', () => onBytes(stream.bytesRead));
  return stream;
}

/**
 * A file in the import's JSON format, read a chunk at a time and cut into rows as it comes
 * (json-rows.ts): a file larger than memory, or than the longest string Node.js can hold, imports
 * like a small one. Only the rows of the chunk being read are held.
 */
export async function* jsonFileSource(path: string, onBytes?: OnBytes): Source {
  const found: Found[] = [];
  const walker = new JsonRowWalker(
    (key) => SECTIONS.has(key),
    (f) => found.push(f),
  );
  let index = 0;
  const items = function* (): Generator<SourceItem> {
    for (const f of found) {
      if (f.kind === 'array') index = 0;
      else if (f.kind === 'row') yield { kind: 'row', section: f.key as SectionName, index: index++, value: f.value };
      else if (f.kind === 'member') yield* sectionItems(f.key, f.value);
      else if (f.kind === 'top') yield { kind: 'problem', text: `file: expected an object, got ${shown(f.value)}` };
    }
    found.length = 0;
  };
  try {
    for await (const chunk of fileStream(path, onBytes) as AsyncIterable<Buffer>) {
      walker.write(chunk);
      yield* items();
    }
    walker.end();
    yield* items();
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new SourceSyntaxError(err.message);
    throw err;
  }
}

/**
 * An NDJSON file: one row per line, each an object whose `tipo` names its section and whose
 * other fields are the row's (blank lines are skipped). Rows of a section may come in any order
 * and be mixed with others; each is numbered among its section's rows, as in the JSON format.
 */
export async function* ndjsonFileSource(path: string, onBytes?: OnBytes): Source {
  const lines = createInterface({ input: fileStream(path, onBytes), crlfDelay: Infinity });
  const counts = new Map<SectionName, number>();
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      yield { kind: 'problem', text: `line ${line}: not valid JSON: ${(err as Error).message}` };
      continue;
    }
    if (!isRecord(value)) {
      yield { kind: 'problem', text: `line ${line}: expected an object, got ${shown(value)}` };
      continue;
    }
    const { tipo, ...row } = value;
    if (typeof tipo !== 'string' || !SECTIONS.has(tipo)) {
      const why = tipo === undefined ? 'is required' : `must be one of ${SECTION_NAMES.join(', ')}; got ${shown(tipo)}`;
      yield { kind: 'problem', text: `line ${line}: tipo: ${why}` };
      continue;
    }
    const section = tipo as SectionName;
    const index = counts.get(section) ?? 0;
    counts.set(section, index + 1);
    yield { kind: 'row', section, index, line, value: row };
  }
}

/** The source a file's name calls for: NDJSON for `.ndjson` and `.jsonl`, else the JSON format. */
export function fileSource(path: string, onBytes?: OnBytes): Source {
  return isNdjson(path) ? ndjsonFileSource(path, onBytes) : jsonFileSource(path, onBytes);
}

export const isNdjson = (path: string): boolean => /\.(ndjson|jsonl)$/i.test(path);
