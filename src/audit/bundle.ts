import { readFileSync } from 'node:fs';
import { pipeline, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';
import { compareUtf8 } from '../store/chain.ts';
import { positionToString, type StoredEvent } from '../store/types.ts';
import { parsePosition } from './anchor.ts';
import { ChainChecker, type ChainBreak } from './chain-check.ts';
import { MerkleRoot } from './merkle.ts';

/**
 * An auditor's bundle: one gzip file of JSON lines (NDJSON), written and read as a stream, so
 * neither side ever holds more than one stream's last link per stream being read. Its records,
 * in this order, each with a `record` member naming its kind:
 *
 *   manifest   one, first: format and version, the service and its version, when it was
 *              exported, what was selected, and the `--as-of` time if any;
 *   worker     the workers selected (id and document), so the bundle can be replayed by
 *              document number without the database;
 *   event      every event of the selected streams, streams in the byte order of their names
 *              (UTF-8), each stream in revision order, with the hash the store keeps;
 *   head       after each stream's last event: the stream, its last revision and that event's
 *              hash (the stream's head);
 *   end        one, last: the counts of workers, streams and events, and the Merkle root of the
 *              heads (merkle.ts, as `audit anchor` computes it).
 *
 * The manifest opens the file and the end closes it: a bundle cut short has no end record. The
 * heads are records of their own, each written as its stream ends, rather than a list in the
 * end record, so that a bundle of any number of streams is written and read in bounded memory.
 */
export const BUNDLE_FORMAT = 'vacaciones-audit-bundle';
export const BUNDLE_FORMAT_VERSION = 1;

export type BundleSelection = { kind: 'documento'; documento: string } | { kind: 'subgerencia'; subgerencia: string } | { kind: 'all' };

export interface BundleManifest {
  record: 'manifest';
  format: typeof BUNDLE_FORMAT;
  formatVersion: number;
  service: { name: string; version: string };
  exportedAt: string;
  selection: BundleSelection;
  /** Each stream up to its last event recorded at or before this time (see streamAsOf). */
  asOf: string | null;
}

export interface BundleWorker {
  record: 'worker';
  id: number;
  documentType: string;
  documentNumber: string;
}

export interface BundleEvent {
  record: 'event';
  stream: string;
  revision: number;
  id: string;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
  /** The log position, `commit/prepare`. */
  position: string;
  recordedAt: string;
  hash: string;
}

export interface BundleHead {
  record: 'head';
  stream: string;
  revision: number;
  hash: string;
}

export interface BundleEnd {
  record: 'end';
  workers: number;
  streams: number;
  events: number;
  root: string;
}

export type BundleRecord = BundleManifest | BundleWorker | BundleEvent | BundleHead | BundleEnd;

/** The service's name and version, from its package.json (two levels up from src/ and dist/). */
export function serviceVersion(): { name: string; version: string } {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
  return { name: pkg.name, version: pkg.version };
}

export function bundleEvent(e: StoredEvent): BundleEvent {
  return {
    record: 'event',
    stream: e.stream,
    revision: e.revision,
    id: e.id,
    type: e.type,
    version: e.version,
    data: e.data,
    metadata: e.metadata,
    position: positionToString(e.position),
    recordedAt: e.recordedAt,
    hash: e.hash ?? '',
  };
}

export function storedEvent(e: BundleEvent): StoredEvent {
  return {
    id: e.id,
    stream: e.stream,
    revision: e.revision,
    type: e.type,
    version: e.version,
    data: e.data,
    metadata: e.metadata,
    position: parsePosition(e.position),
    recordedAt: e.recordedAt,
    hash: e.hash,
  };
}

/**
 * Writes a bundle's records to `out` through gzip, waiting whenever gzip's buffer is full, and
 * writes each stream's head and the end record itself from the events it was given.
 */
export class BundleWriter {
  private readonly gzip: Gzip;
  private readonly done: Promise<void>;
  private readonly merkle = new MerkleRoot();
  private current: { stream: string; revision: number; hash: string } | undefined;
  workers = 0;
  streams = 0;
  events = 0;

  constructor(out: Writable, manifest: Omit<BundleManifest, 'record' | 'format' | 'formatVersion' | 'service'>) {
    this.gzip = createGzip();
    this.done = new Promise((resolve, reject) => pipeline(this.gzip, out, (err) => (err ? reject(err) : resolve())));
    // Failures surface from end(); a writer abandoned on error must not leave this rejection unheard.
    this.done.catch(() => {});
    this.line({ record: 'manifest', format: BUNDLE_FORMAT, formatVersion: BUNDLE_FORMAT_VERSION, service: serviceVersion(), ...manifest });
  }

  private line(r: BundleRecord): Promise<void> | undefined {
    if (this.gzip.destroyed) throw new Error("the bundle's output was closed");
    return this.gzip.write(`${JSON.stringify(r)}\n`) ? undefined : this.drained();
  }

  /** Gzip's buffer emptied, or the output closed under it (a download given up): then it fails. */
  private drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      const settle = () => {
        this.gzip.off('drain', settle);
        this.gzip.off('close', settle);
        if (this.gzip.destroyed) reject(new Error("the bundle's output was closed"));
        else resolve();
      };
      this.gzip.on('drain', settle);
      this.gzip.on('close', settle);
    });
  }

  async worker(w: Omit<BundleWorker, 'record'>): Promise<void> {
    if (this.events > 0) throw new Error('workers come before the events in a bundle');
    this.workers++;
    await this.line({ record: 'worker', ...w });
  }

  /** Events of each stream in revision order, streams in the byte order of their names. */
  async event(e: StoredEvent): Promise<void> {
    if (this.current?.stream !== e.stream) {
      if (this.current && compareUtf8(this.current.stream, e.stream) >= 0)
        throw new Error(`streams out of order: ${e.stream} after ${this.current.stream}`);
      await this.closeStream();
      this.current = { stream: e.stream, revision: e.revision, hash: e.hash ?? '' };
      this.streams++;
    }
    this.current = { stream: e.stream, revision: e.revision, hash: e.hash ?? '' };
    this.events++;
    await this.line(bundleEvent(e));
  }

  private async closeStream(): Promise<void> {
    if (!this.current) return;
    const head: BundleHead = { record: 'head', ...this.current };
    this.merkle.add(this.current);
    this.current = undefined;
    await this.line(head);
  }

  /** Writes the last head and the end record and waits until everything reached `out`. */
  async end(): Promise<BundleEnd> {
    await this.closeStream();
    const end: BundleEnd = { record: 'end', workers: this.workers, streams: this.streams, events: this.events, root: this.merkle.root() };
    this.gzip.end(`${JSON.stringify(end)}\n`);
    await this.done;
    return end;
  }

  /** Stops writing: what reached `out` so far has no end record, so it never verifies. */
  abort(err: Error): void {
    this.gzip.destroy(err);
  }
}

/** A bundle that cannot be read as one (not gzip, a line that is not JSON): no record after it can be trusted. */
export class BundleReadError extends Error {
  override name = 'BundleReadError';
}

/** The records of a bundle, one at a time, from its gzip bytes. */
export async function* readBundle(input: Readable): AsyncGenerator<BundleRecord & { line: number }> {
  const gunzip = createGunzip();
  pipeline(input, gunzip, () => {});
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let line = 0;
  const parse = (text: string) => {
    line++;
    try {
      const r = JSON.parse(text) as BundleRecord;
      if (typeof r !== 'object' || r === null || typeof r.record !== 'string') throw new Error('no record member');
      return { ...r, line };
    } catch (err) {
      throw new BundleReadError(`line ${line} is not a bundle record: ${(err as Error).message}`);
    }
  };
  try {
    for await (const chunk of gunzip) {
      rest += decoder.write(chunk as Buffer);
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const text = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        if (text !== '') yield parse(text);
      }
    }
  } catch (err) {
    if (err instanceof BundleReadError) throw err;
    throw new BundleReadError(whyUnreadable(err as NodeJS.ErrnoException, line));
  }
  rest += decoder.end();
  if (rest !== '') yield parse(rest);
}

/** Why a bundle's bytes could not be read, in one line. */
function whyUnreadable(err: NodeJS.ErrnoException, line: number): string {
  if (line === 0 && err.code === 'Z_DATA_ERROR') return 'the file is not gzip: it is not an audit bundle';
  if (line === 0 && err.code === 'Z_BUF_ERROR') return 'the file ends before its first line: it is empty or cut short';
  return `the bundle cannot be read after line ${line}: ${err.message}`;
}

export interface BundleReport {
  manifest: BundleManifest | undefined;
  workers: number;
  streams: number;
  events: number;
  /** The Merkle root of the heads recomputed from the events. */
  root: string;
  /** The first break of each broken chain. */
  breaks: ChainBreak[];
  /** Whatever else does not hold: records out of place, heads, counts or root that disagree, a cut. */
  problems: string[];
  ms: number;
}

/** Problems listed before the rest is only counted (a bundle mangled throughout would list every line). */
const PROBLEMS_KEPT = 100;

/**
 * Recomputes every chain of a bundle and the root of their heads, and checks them against its
 * head and end records: everything an auditor can check with the bundle alone.
 */
export async function verifyBundle(input: Readable, onProgress?: (events: number) => void): Promise<BundleReport> {
  const t0 = performance.now();
  const checker = new ChainChecker();
  const merkle = new MerkleRoot();
  const problems: string[] = [];
  let dropped = 0;
  const problem = (p: string) => (problems.length < PROBLEMS_KEPT ? problems.push(p) : dropped++);
  let manifest: BundleManifest | undefined;
  let end: BundleEnd | undefined;
  let workers = 0;
  /** The stream whose events are being read, until its head record. */
  let open: string | undefined;
  /** The last stream closed by its head, for the order of names. */
  let last: string | undefined;
  let headless = 0;

  /** A stream's head into the root; one out of order is already a problem, and stays out of it. */
  const closeStream = (stream: string) => {
    if (last === undefined || compareUtf8(last, stream) < 0) {
      merkle.add({ stream, ...checker.head(stream) });
      last = stream;
    }
    checker.forget(stream);
    open = undefined;
  };
  const closeWithoutHead = () => {
    if (open === undefined) return;
    headless++;
    if (headless <= 3) problem(`stream ${open} has no head record after its last event`);
    closeStream(open);
  };

  let records = 0;
  let unreadable = false;
  try {
    for await (const r of readBundle(input)) {
      records++;
      if (r.line === 1) {
        if (r.record !== 'manifest' || r.format !== BUNDLE_FORMAT) {
          problem('line 1 is not the manifest of an audit bundle');
          break;
        }
        if (r.formatVersion !== BUNDLE_FORMAT_VERSION) {
          problem(`the bundle is of format version ${r.formatVersion}; this service reads version ${BUNDLE_FORMAT_VERSION}`);
          break;
        }
        manifest = r;
        continue;
      }
      if (end) {
        problem(`line ${r.line}: a record after the end record`);
        break;
      }
      switch (r.record) {
        case 'worker':
          workers++;
          if (checker.events > 0) problem(`line ${r.line}: a worker record among the events`);
          break;
        case 'event': {
          if (open !== r.stream) {
            closeWithoutHead();
            if (last !== undefined && compareUtf8(last, r.stream) >= 0)
              problem(`line ${r.line}: stream ${r.stream} comes after ${last}, out of order or twice`);
            open = r.stream;
          }
          checker.check(r);
          onProgress?.(checker.events);
          break;
        }
        case 'head': {
          if (open !== r.stream) {
            problem(`line ${r.line}: the head of stream ${r.stream} does not follow its events`);
            break;
          }
          const seen = checker.head(r.stream);
          if (seen.revision !== r.revision || seen.hash !== r.hash)
            problem(
              `stream ${r.stream}: its head record says revision ${r.revision} with hash ${r.hash}, its events end at revision ${seen.revision} with hash ${seen.hash}`,
            );
          closeStream(r.stream);
          break;
        }
        case 'end':
          closeWithoutHead();
          end = r;
          break;
        default:
          problem(`line ${r.line}: a record of unknown kind ${JSON.stringify((r as { record: unknown }).record)}`);
      }
    }
  } catch (err) {
    if (!(err instanceof BundleReadError)) throw err;
    unreadable = true;
    problem(err.message);
  }
  closeWithoutHead();
  if (headless > 3) problem(`... ${headless} streams in all have no head record`);
  const root = merkle.root();
  if (records === 0 && !unreadable) problem('the bundle holds no records: it is empty');
  else if (manifest && !end) problem('the bundle ends without its end record: it was cut short');
  if (end) {
    const counts = { workers, streams: merkle.count, events: checker.events };
    for (const [what, n] of Object.entries(counts)) {
      const said = end[what as keyof typeof counts];
      if (said !== n) problem(`the end record counts ${said} ${what}, the bundle holds ${n}`);
    }
    if (end.root !== root) problem(`the end record gives the root ${end.root}, the heads recomputed give ${root}`);
  }
  if (dropped > 0) problems.push(`... and ${dropped} more problems`);
  return {
    manifest,
    workers,
    streams: merkle.count,
    events: checker.events,
    root,
    breaks: checker.breaks,
    problems,
    ms: performance.now() - t0,
  };
}
