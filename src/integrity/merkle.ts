import { createHash } from 'node:crypto';
import { canonicalJson, compareUtf8 } from '../store/chain.ts';

/** A stream's newest event as an anchor sees it. */
export interface StreamHead {
  stream: string;
  revision: number;
  hash: string;
}

/**
 * The Merkle root of stream heads, as RFC 6962 (Certificate Transparency) builds its trees: the
 * heads in the byte order of their streams' names (UTF-8, PostgreSQL's `COLLATE "C"`), each leaf
 * SHA-256(0x00 ‖ canonical JSON of {stream, revision, hash}), each node SHA-256(0x01 ‖ left ‖
 * right), a tree of n leaves split after the largest power of two below n; no heads at all hash
 * as SHA-256 of nothing. Heads are added one at a time in that order and only the roots of the
 * complete subtrees so far are kept, so any number of streams takes a few dozen hashes of memory.
 */
export class MerkleRoot {
  private readonly stack: { size: number; hash: Buffer }[] = [];
  private last: string | undefined;
  count = 0;

  add(head: StreamHead): void {
    if (this.last !== undefined && compareUtf8(this.last, head.stream) >= 0) {
      throw new Error(`stream heads out of order: ${head.stream} after ${this.last}`);
    }
    this.last = head.stream;
    this.count++;
    let node = { size: 1, hash: leafHash(head) };
    while (this.stack.length > 0 && this.stack.at(-1)!.size === node.size) {
      const left = this.stack.pop()!;
      node = { size: left.size * 2, hash: nodeHash(left.hash, node.hash) };
    }
    this.stack.push(node);
  }

  /** The root of the heads added so far, as hex. */
  root(): string {
    if (this.stack.length === 0) return createHash('sha256').digest('hex');
    let right = this.stack.at(-1)!.hash;
    for (let i = this.stack.length - 2; i >= 0; i--) right = nodeHash(this.stack[i]!.hash, right);
    return right.toString('hex');
  }
}

function leafHash(head: StreamHead): Buffer {
  const leaf = canonicalJson({ stream: head.stream, revision: head.revision, hash: head.hash });
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(leaf, 'utf8')
    .digest();
}

function nodeHash(left: Buffer, right: Buffer): Buffer {
  return createHash('sha256')
    .update(Buffer.from([1]))
    .update(left)
    .update(right)
    .digest();
}

/** The root of heads given in any order. */
export function merkleRoot(heads: Iterable<StreamHead>): string {
  const sorted = [...heads].sort((a, b) => compareUtf8(a.stream, b.stream));
  const m = new MerkleRoot();
  for (const h of sorted) m.add(h);
  return m.root();
}
