import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pipeline, type Readable, type Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';
import { compareUtf8 } from '../store/chain.ts';
import { positionToString, type StoredEvent } from '../store/types.ts';
import { parsePosition } from './anchor.ts';
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
 *   end        one, last: the counts of workers, streams and events, the Merkle root of the
 *              heads (merkle.ts, as `audit anchor` computes it), and the SHA-256 digest of
 *              every line before it, as written (each with its newline).
 *
 * The manifest opens the file and the end closes it: a bundle cut short has no end record. The
 * heads are records of their own, each written as its stream ends, rather than a list in the
 * end record, so that a bundle of any number of streams is written and read in bounded memory;
 * the digest is a running hash, kept as the lines are written and read. The chains cover what
 * the events say; the digest covers everything else too (positions, recording times, workers,
 * the manifest), so a bundle changed anywhere and not rewritten whole fails on its own digest,
 * and one rewritten whole fails against the root and digest kept from its export (keptLine).
 */
export const BUNDLE_FORMAT = 'vacaciones-audit-bundle';
/** 2: the end record carries the digest of the lines before it. */
export const BUNDLE_FORMAT_VERSION = 2;
/** Bundles of format 1 (no digest) are still read: their chains, heads and root are what they prove. */
export const OLDEST_FORMAT_READ = 1;

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
  /** SHA-256 of every line before this one, as hex. */
  digest: string;
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
  private readonly digest = createHash('sha256');
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
    const text = `${JSON.stringify(r)}\n`;
    this.digest.update(text, 'utf8');
    return this.gzip.write(text) ? undefined : this.drained();
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
    const end: BundleEnd = {
      record: 'end',
      workers: this.workers,
      streams: this.streams,
      events: this.events,
      root: this.merkle.root(),
      digest: this.digest.digest('hex'),
    };
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

/** A record as read: its line, and for the end record the digest of the lines before it, recomputed. */
export type ReadRecord = BundleRecord & { line: number; digestBefore?: string };

/** The records of a bundle, one at a time, from its gzip bytes. */
export async function* readBundle(input: Readable): AsyncGenerator<ReadRecord> {
  const gunzip = createGunzip();
  pipeline(input, gunzip, () => {});
  const decoder = new StringDecoder('utf8');
  const digest = createHash('sha256');
  let rest = '';
  let line = 0;
  const parse = (text: string): ReadRecord => {
    line++;
    let r: BundleRecord;
    try {
      r = JSON.parse(text) as BundleRecord;
      if (typeof r !== 'object' || r === null || typeof r.record !== 'string') throw new Error('no record member');
    } catch (err) {
      throw new BundleReadError(`line ${line} is not a bundle record: ${(err as Error).message}`);
    }
    return r.record === 'end' ? { ...r, line, digestBefore: digest.copy().digest('hex') } : { ...r, line };
  };
  try {
    for await (const chunk of gunzip) {
      rest += decoder.write(chunk as Buffer);
      let nl: number;
      while ((nl = rest.indexOf('\n')) >= 0) {
        const text = rest.slice(0, nl);
        rest = rest.slice(nl + 1);
        // Blank lines are no records, but count as written: the digest covers every byte.
        if (text !== '') yield parse(text);
        digest.update(`${text}\n`, 'utf8');
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
