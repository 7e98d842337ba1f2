/** The characters COPY's text format escapes: backslash, and those that separate fields and rows. */
const SPECIAL = /[\\\t\n\r]/;
const SPECIALS = /[\\\t\n\r]/g;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY's text format. */
export function copyText(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') return String(v);
  const s = String(v);
  // Most values hold none of them: one test, no new string.
  return SPECIAL.test(s) ? s.replace(SPECIALS, (c) => ESCAPES[c]!) : s;
}

/**
 * A value as JSON text in a field of COPY's text format (null and undefined as NULL). JSON.stringify
 * writes tabs, newlines and carriage returns inside strings as escapes and none between tokens, so
 * backslashes are all there is to double: no search for the other three.
 */
export function copyJson(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  const json = JSON.stringify(v);
  return json.includes('\\') ? json.replaceAll('\\', '\\\\') : json;
}

/**
 * Lines of COPY's text format gathered as UTF-8 in one growing buffer, each line written into it
 * as it comes. Joining the lines into one string and encoding that took some three times as long:
 * the join flattens every line's string of pieces, and the encoding copies the whole once more (a
 * tenth of a rebuild's time went to it).
 */
export class CopyLines {
  private buffer: Buffer;
  private used = 0;
  /** Lines added so far. */
  count = 0;

  constructor(initialBytes = 1 << 16) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
  }

  /** Adds a line (its fields already in COPY's text format, tab-separated). */
  add(line: string): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8, and Buffer.write cuts short where room ends.
    const room = line.length * 3 + 1;
    if (this.used + room > this.buffer.length) this.grow(room);
    this.used += this.buffer.write(line, this.used, 'utf8');
    this.buffer[this.used++] = 0x0a;
    this.count++;
  }

  /** The lines' bytes, each ending in a newline: valid until the next add. */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.used);
  }

  private grow(room: number): void {
    const next = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.used + room));
    this.buffer.copy(next, 0, 0, this.used);
    this.buffer = next;
  }
}
