import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MerkleRoot, merkleRoot, type StreamHead } from '../../../src/integrity/merkle.ts';
import { canonicalJson } from '../../../src/store/chain.ts';

const sha = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** RFC 6962's MTH, written from its definition: split after the largest power of two below n. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return sha(Buffer.from([0]), leaves[0]!);
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

const head = (i: number): StreamHead => ({
  stream: `s-${String(i).padStart(5, '0')}`,
  revision: i % 7,
  hash: sha(Buffer.from(String(i))).toString('hex'),
});
const leaf = (h: StreamHead) => Buffer.from(canonicalJson({ stream: h.stream, revision: h.revision, hash: h.hash }));

describe('Merkle root of stream heads', () => {
  it('is RFC 6962 MTH over the heads in byte order of their names, for every size up to 70', () => {
    for (let n = 0; n <= 70; n++) {
      const heads = Array.from({ length: n }, (_, i) => head(i));
      expect(merkleRoot([...heads].reverse()), `${n} heads`).toBe(mth(heads.map(leaf)).toString('hex'));
    }
  });

  it('changes with any head: its revision, its hash, or its absence', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.nat(), (n, pick) => {
        const heads = Array.from({ length: n }, (_, i) => head(i));
        const root = merkleRoot(heads);
        const i = pick % n;
        expect(merkleRoot(heads.map((h, j) => (j === i ? { ...h, revision: h.revision + 1 } : h)))).not.toBe(root);
        expect(merkleRoot(heads.map((h, j) => (j === i ? { ...h, hash: head(i + 1000).hash } : h)))).not.toBe(root);
        expect(merkleRoot(heads.filter((_, j) => j !== i))).not.toBe(root);
      }),
    );
  });

  it('orders names by their UTF-8 bytes, and refuses heads given out of that order', () => {
    const names = ['worker-2', 'worker-10', 'Z', 'ñ', 'é', '😀', '\uffff'];
    const heads = names.map((stream, i) => ({ ...head(i), stream }));
    const sorted = [...heads].sort((a, b) => Buffer.compare(Buffer.from(a.stream), Buffer.from(b.stream)));
    expect(merkleRoot(heads)).toBe(mth(sorted.map(leaf)).toString('hex'));
    const m = new MerkleRoot();
    m.add(sorted[1]!);
    expect(() => m.add(sorted[0]!)).toThrow(/out of order/);
  });
});
