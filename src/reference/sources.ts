import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import chain from 'stream-chain';
import { parser } from 'stream-json';
import { batch } from 'stream-json/utils/batch.js';
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
 * A file in the import's JSON format, read as a stream of tokens (stream-json) and turned back
 * into one row at a time: a file larger than memory, or than the longest string V8 can hold,
 * imports like a small one. Only the row being read is held.
 */
export async function* jsonFileSource(path: string, onBytes?: OnBytes): Source {
  const tokens = chain([fileStream(path, onBytes), parser({ streamValues: false }), batch({ batchSize: 4096 })]);
  // Where the reader is: before the file's object, between its keys, or inside a section.
  let depth = 0;
  let key: string | undefined;
  let section: SectionName | undefined;
  let index = 0;
  // The value being assembled (a row, or the value of something that is not a section).
  const building = new Builder();
  let skipping: string | undefined;
  try {
    for await (const batchOf of tokens as AsyncIterable<Token[]>) {
      for (const t of batchOf) {
        if (building.active) building.take(t);
        else if (depth === 0) {
          if (t.name === 'startObject') depth = 1;
          else if (isValueStart(t)) building.take(t);
        } else if (depth === 1) {
          if (t.name === 'keyValue') key = t.value as string;
          else if (t.name === 'endObject') depth = 0;
          else if (t.name === 'startArray' && key !== undefined && SECTIONS.has(key)) {
            section = key as SectionName;
            index = 0;
            depth = 2;
          } else if (isValueStart(t)) {
            // Not a section, or a section that is not an array: assembled to be reported.
            skipping = key;
            building.take(t);
          }
        } else if (t.name === 'endArray') {
          section = undefined;
          depth = 1;
        } else if (isValueStart(t)) building.take(t);

        if (!building.finished) continue;
        const value = building.collect();
        if (section) yield { kind: 'row', section, index: index++, value };
        else if (skipping !== undefined) yield* sectionItems(skipping, value);
        else yield { kind: 'problem', text: `file: expected an object, got ${shown(value)}` };
        skipping = undefined;
      }
    }
  } catch (err) {
    throw new SourceSyntaxError((err as Error).message);
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

type Token = { name: string; value?: unknown };

function isValueStart(t: Token): boolean {
  return t.name !== 'keyValue' && t.name !== 'endObject' && t.name !== 'endArray' && t.name !== 'whitespace';
}

/**
 * Builds one JSON value from the parser's packed tokens. The rows are small, so a plain stack
 * does; stream-json's Assembler, made for values of any shape, costs more per row than parsing it.
 */
class Builder {
  /** Inside a value. */
  active = false;
  /** A value is complete and waits to be collected. */
  finished = false;
  private value: unknown;
  private stack: (Record<string, unknown> | unknown[])[] = [];
  private keys: (string | undefined)[] = [];
  private key: string | undefined;

  take(t: Token): void {
    let v: unknown;
    switch (t.name) {
      case 'startObject':
      case 'startArray': {
        const c = t.name === 'startObject' ? {} : [];
        if (this.stack.length > 0) this.put(c);
        this.stack.push(c);
        this.keys.push(this.key);
        this.active = true;
        return;
      }
      case 'endObject':
      case 'endArray': {
        const done = this.stack.pop();
        this.key = this.keys.pop();
        if (this.stack.length === 0) this.finish(done);
        return;
      }
      case 'keyValue':
        this.key = t.value as string;
        return;
      case 'stringValue':
        v = t.value;
        break;
      case 'numberValue':
        v = Number(t.value);
        break;
      case 'nullValue':
        v = null;
        break;
      case 'trueValue':
        v = true;
        break;
      case 'falseValue':
        v = false;
        break;
      default:
        return;
    }
    if (this.stack.length === 0) this.finish(v);
    else this.put(v);
  }

  private put(v: unknown): void {
    const top = this.stack[this.stack.length - 1]!;
    if (Array.isArray(top)) top.push(v);
    else top[this.key!] = v;
  }

  private finish(v: unknown): void {
    this.value = v;
    this.active = false;
    this.finished = true;
  }

  collect(): unknown {
    this.finished = false;
    const v = this.value;
    this.value = undefined;
    return v;
  }
}
