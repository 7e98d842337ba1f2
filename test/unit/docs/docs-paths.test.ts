import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs are a map: a path they name must lead somewhere, and a figure measured once must live in
// docs/benchmarks.md, where the next run replaces it, not in a comment that nobody re-measures.
const root = join(import.meta.dirname, '..', '..', '..');

function walk(dir: string, keep: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) found.push(...walk(full, keep));
    else if (keep(full)) found.push(full);
  }
  return found;
}

const isCode = (file: string) => /\.(ts|js|mjs|cjs)$/.test(file);
const codeFiles = ['src', 'test', 'bench'].flatMap((dir) => walk(join(root, dir), isCode));
const docFiles = [
  ...walk(join(root, 'docs'), (file) => file.endsWith('.md')),
  ...walk(join(root, 'src'), (file) => file.endsWith('README.md')),
  join(root, 'README.md'),
  join(root, 'CONTRIBUTING.md'),
];

/** The comments of a source file, line by line, so a string or a regex in code is not read as prose. */
function comments(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/\/\*[\s\S]*?\*\/|(?<![:"'`\\])\/\/[^\n]*/g)) found.push(match[0]);
  return found;
}

// A path starts at one of the four roots and ends in an extension or a slash; globs and placeholders
// (`*`, `<name>`, `{a,b}`) are patterns, not places, and are left alone.
const pathPattern = /(?<![\w./-])((?:src|test|docs|bench)\/[\w./-]*(?:\.[a-z]{1,5}|\/))(?![\w*<{])/g;

function namedPaths(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(pathPattern)) {
    const path = (match[1] ?? '').replace(/[.]$/, '');
    const after = text.slice((match.index ?? 0) + match[0].length, (match.index ?? 0) + match[0].length + 1);
    if (/[*<{]/.test(after)) continue;
    // What a benchmark writes is made at run time and ignored by git.
    if (path.startsWith('bench/results/')) continue;
    found.push(path);
  }
  return found;
}

describe('the docs are a map', () => {
  it('names only paths that exist', () => {
    const dangling: string[] = [];
    for (const file of docFiles) {
      for (const path of namedPaths(readFileSync(file, 'utf8'))) {
        if (!existsSync(join(root, path))) dangling.push(`${relative(root, file)}: ${path}`);
      }
    }
    for (const file of codeFiles) {
      for (const comment of comments(readFileSync(file, 'utf8'))) {
        for (const path of namedPaths(comment)) {
          if (!existsSync(join(root, path))) dangling.push(`${relative(root, file)}: ${path}`);
        }
      }
    }
    expect(dangling).toEqual([]);
  });

  // A setting's default and an encoding's byte counts are facts of the code, not measurements.
  it('keeps measured figures out of the comments in src', () => {
    const figure =
      /\d[\d,.]*\s*(?:-\s*\d[\d,.]*\s*)?(?:req\/s|answers\/s|requests\/s|ops\/s|ms\b|µs|us\b|MB\b|KB\b|GB\b|bytes\b|%|x faster|times faster)/;
    const fact = /\(default \d|UTF-(?:8|16)/;
    const found: string[] = [];
    for (const file of walk(join(root, 'src'), isCode)) {
      for (const comment of comments(readFileSync(file, 'utf8'))) {
        for (const line of comment.split('\n')) {
          if (figure.test(line) && !fact.test(line)) found.push(`${relative(root, file)}: ${line.trim()}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  // A map stays small enough to be read: history goes to git, depth to one file per subject.
  it('keeps docs/ within 100 KB, architecture.md within 8 KB and benchmarks.md within 25 KB', () => {
    const size = (file: string) => statSync(join(root, 'docs', file)).size;
    const total = readdirSync(join(root, 'docs')).reduce((n, f) => n + size(f), 0);
    expect({
      total: total <= 100_000,
      architecture: size('architecture.md') <= 8_000,
      benchmarks: size('benchmarks.md') <= 25_000,
    }).toEqual({
      total: true,
      architecture: true,
      benchmarks: true,
    });
  });
});
