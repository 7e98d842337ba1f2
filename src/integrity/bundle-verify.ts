import type { Readable } from 'node:stream';
import { compareUtf8 } from '../store/chain.ts';
import {
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_VERSION,
  BundleReadError,
  OLDEST_FORMAT_READ,
  readBundle,
  type BundleEnd,
  type BundleManifest,
} from './bundle.ts';
import { ChainChecker, type ChainBreak } from './chain-check.ts';
import { MerkleRoot } from './merkle.ts';

/**
 * What an auditor keeps apart from a bundle, printed by `audit export`: the root of its heads and
 * the digest of its lines. A bundle rewritten whole (chains, heads, root and digest recomputed
 * over changed events, positions, times, workers or manifest) holds by itself, but not against it.
 */
export function keptLine(end: Pick<BundleEnd, 'root' | 'digest'>): string {
  return `root ${end.root} digest ${end.digest}`;
}

/** The root and digest of a kept line (the one `audit export` printed), or a root alone. */
export function parseKeptLine(line: string): { root?: string; digest?: string } | undefined {
  const root = /\broot\s+([0-9a-f]{64})\b/.exec(line)?.[1];
  const digest = /\bdigest\s+([0-9a-f]{64})\b/.exec(line)?.[1];
  if (root !== undefined || digest !== undefined) return { root, digest };
  const bare = /\b([0-9a-f]{64})\b/.exec(line)?.[1];
  return bare === undefined ? undefined : { root: bare };
}

/** What the bundle holds against what was kept from its export: one problem per value that differs. */
export function againstKept(report: Pick<BundleReport, 'root' | 'digest'>, kept: { root?: string; digest?: string }): string[] {
  const problems: string[] = [];
  if (kept.root !== undefined && kept.root !== report.root)
    problems.push(`the heads have the root ${report.root}, not the root kept, ${kept.root}`);
  if (kept.digest !== undefined && kept.digest !== report.digest)
    problems.push(`the bundle's lines hash to ${report.digest ?? 'nothing (no end record)'}, not to the digest kept, ${kept.digest}`);
  return problems;
}

export interface BundleReport {
  manifest: BundleManifest | undefined;
  workers: number;
  streams: number;
  events: number;
  /** The Merkle root of the heads recomputed from the events. */
  root: string;
  /** The digest of the lines before the end record, recomputed; undefined without one. */
  digest: string | undefined;
  /** The first break of each broken chain. */
  breaks: ChainBreak[];
  /** Whatever else does not hold: records out of place, heads, counts or root that disagree, a cut. */
  problems: string[];
  /** What the reader should know that is no failure: a bundle of an older format proves less. */
  notes: string[];
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
  let end: (BundleEnd & { digestBefore?: string }) | undefined;
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
        if (!(r.formatVersion >= OLDEST_FORMAT_READ && r.formatVersion <= BUNDLE_FORMAT_VERSION)) {
          problem(
            `the bundle is of format version ${r.formatVersion}; ` +
              `this service reads versions ${OLDEST_FORMAT_READ} to ${BUNDLE_FORMAT_VERSION}`,
          );
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
              `stream ${r.stream}: its head record says revision ${r.revision} with hash ${r.hash}, ` +
                `its events end at revision ${seen.revision} with hash ${seen.hash}`,
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
    if (!carriesDigest(manifest)) {
      if (end.digest !== undefined) problem('the end record of a bundle of format version 1 carries a digest');
    } else if (end.digest !== end.digestBefore)
      problem(
        typeof end.digest === 'string'
          ? `the end record gives the digest ${end.digest}, the lines before it hash to ${end.digestBefore}: ` +
              'the bundle was changed after it was written'
          : 'the end record carries no digest of the lines before it',
      );
  }
  if (dropped > 0) problems.push(`... and ${dropped} more problems`);
  const digested = carriesDigest(manifest);
  return {
    manifest,
    workers,
    streams: merkle.count,
    events: checker.events,
    root,
    digest: digested ? end?.digestBefore : undefined,
    breaks: checker.breaks,
    problems,
    notes: digested
      ? []
      : [
          'the bundle is of format version 1, which carries no digest of its lines: its chains, heads and root are checked, ' +
            'not its positions, recording times, worker records or manifest; export it again for a bundle that covers them',
        ],
    ms: performance.now() - t0,
  };
}

/** Whether a bundle's end record carries the digest of its lines (every format after the first). */
export function carriesDigest(manifest: Pick<BundleManifest, 'formatVersion'> | undefined): boolean {
  return manifest === undefined || manifest.formatVersion >= 2;
}
