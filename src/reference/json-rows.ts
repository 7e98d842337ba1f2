/**
 * The values of a JSON document laid out as the import's format is, `{ "section": [row, ...],
 * ... }`, found in its bytes as they stream in: each row's bytes are cut out and given to
 * JSON.parse whole. A tokenizing stream parser (stream-json) turned a large file into tokens
 * and the tokens back into rows with a quarter of the import's own CPU, which cutting rows out
 * and parsing them whole saves. Only the file's outer object
 * and its arrays are walked here (keys, colons, commas, brackets); inside a value, JSON.parse
 * checks everything.
 */

/** What the walk finds: a member of the outer object that is not an array, a row of an array, or a value where an object was expected. */
export type Found =
  | { kind: 'member'; key: string; value: unknown }
  | { kind: 'array'; key: string }
  | { kind: 'row'; key: string; value: unknown }
  | { kind: 'end-array'; key: string }
  | { kind: 'top'; value: unknown };

export class JsonSyntaxError extends Error {
  override name = 'JsonSyntaxError';
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
/** Bytes that end a number, true, false or null. */
const endsScalar = (b: number) => isSpace(b) || b === COMMA || b === CLOSE_ARRAY || b === CLOSE_OBJECT;

/** Where the walk is between values: what it may meet next. */
type Expect =
  | 'top' // the document's value
  | 'key-or-close' // after `{`
  | 'key' // after a member's comma
  | 'colon'
  | 'member-value'
  | 'comma-or-close-object'
  | 'row-or-close' // after an array's `[`
  | 'row' // after a row's comma
  | 'comma-or-close-array'
  | 'done';

/**
 * Walks the bytes of one document, chunk by chunk, calling `found` for what it finds. `arrays`
 * says which members' arrays are walked row by row; any other member is parsed whole.
 */
export class JsonRowWalker {
  private expect: Expect = 'top';
  private key = '';
  /** The value being cut out: its bytes so far, from earlier chunks. */
  private parts: Buffer[] = [];
  private inValue = false;
  /** For a value being cut out: its nesting depth, and whether inside a string (and after a backslash). */
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;
  /** What the value being cut out is: the document, a member's key, a member's value, a row. */
  private valueRole: 'top' | 'key' | 'member' | 'row' = 'top';
  /** Bytes of the document seen before the current chunk, for the position in a message. */
  private offset = 0;

  constructor(
    private readonly arrays: (key: string) => boolean,
    private readonly found: (f: Found) => void,
  ) {}

  write(chunk: Buffer): void {
    // A byte order mark before the document is not part of it.
    let i = this.offset === 0 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? 3 : 0;
    const n = chunk.length;
    while (i < n) {
      if (this.inValue) {
        const end = this.scan(chunk, i);
        if (end < 0) {
          this.parts.push(i === 0 ? chunk : chunk.subarray(i));
          break;
        }
        const bytes = this.parts.length === 0 ? chunk.subarray(i, end) : Buffer.concat([...this.parts, chunk.subarray(0, end)]);
        this.parts = [];
        this.inValue = false;
        this.take(bytes, this.offset + end);
        i = end;
        continue;
      }
      const b = chunk[i]!;
      if (isSpace(b)) {
        i++;
        continue;
      }
      this.punctuation(b, this.offset + i);
      if (this.inValue) {
        // The value starts at this byte: scanned from it on the next turn of the loop.
        if (!this.scalar) this.depth = 0;
        continue;
      }
      i++;
    }
    this.offset += n;
  }

  /** The document ended: anything left unfinished is an error. */
  end(): void {
    if (this.inValue && this.scalar && this.parts.length > 0) {
      const bytes = Buffer.concat(this.parts);
      this.parts = [];
      this.inValue = false;
      this.take(bytes, this.offset);
    }
    if (this.expect !== 'done') throw new JsonSyntaxError(`unexpected end of the file after ${this.offset} bytes`);
  }

  private fail(what: string, at: number): never {
    throw new JsonSyntaxError(`${what} at byte ${at}`);
  }

  /** A byte between values. Starts a value (inValue) or moves the expectation on. */
  private punctuation(b: number, at: number): void {
    const valueStart =
      b === OPEN_OBJECT ||
      b === OPEN_ARRAY ||
      b === QUOTE ||
      b === 0x2d ||
      (b >= 0x30 && b <= 0x39) ||
      b === 0x74 ||
      b === 0x66 ||
      b === 0x6e;
    switch (this.expect) {
      case 'top':
        if (b === OPEN_OBJECT) return void (this.expect = 'key-or-close');
        if (valueStart) return this.startValue('top', b);
        return this.fail(`unexpected ${shownByte(b)}`, at);
      case 'key-or-close':
      case 'key':
        if (b === QUOTE) return this.startValue('key', b);
        if (b === CLOSE_OBJECT && this.expect === 'key-or-close') return void (this.expect = 'done');
        return this.fail(`expected a key, got ${shownByte(b)}`, at);
      case 'colon':
        if (b === COLON) return void (this.expect = 'member-value');
        return this.fail(`expected ':', got ${shownByte(b)}`, at);
      case 'member-value':
        if (b === OPEN_ARRAY && this.arrays(this.key)) {
          this.found({ kind: 'array', key: this.key });
          return void (this.expect = 'row-or-close');
        }
        if (valueStart) return this.startValue('member', b);
        return this.fail(`unexpected ${shownByte(b)}`, at);
      case 'comma-or-close-object':
        if (b === COMMA) return void (this.expect = 'key');
        if (b === CLOSE_OBJECT) return void (this.expect = 'done');
        return this.fail(`expected ',' or '}', got ${shownByte(b)}`, at);
      case 'row-or-close':
      case 'row':
        if (b === CLOSE_ARRAY && this.expect === 'row-or-close') return this.closeArray();
        if (valueStart) return this.startValue('row', b);
        return this.fail(`unexpected ${shownByte(b)}`, at);
      case 'comma-or-close-array':
        if (b === COMMA) return void (this.expect = 'row');
        if (b === CLOSE_ARRAY) return this.closeArray();
        return this.fail(`expected ',' or ']', got ${shownByte(b)}`, at);
      case 'done':
        return this.fail(`unexpected ${shownByte(b)} after the end of the document`, at);
    }
  }

  private closeArray(): void {
    this.found({ kind: 'end-array', key: this.key });
    this.expect = 'comma-or-close-object';
  }

  private startValue(role: JsonRowWalker['valueRole'], b: number): void {
    this.valueRole = role;
    this.inValue = true;
    this.inString = false;
    this.escaped = false;
    this.scalar = !(b === OPEN_OBJECT || b === OPEN_ARRAY || b === QUOTE);
  }

  /**
   * Scans the value being cut out from `i`: the index one past its end in this chunk, or -1 when
   * it goes on in the next one.
   */
  private scan(chunk: Buffer, i: number): number {
    const n = chunk.length;
    if (this.scalar) {
      // The value's first byte is never an end byte: a scan resuming at a chunk's start is past it.
      for (let j = this.parts.length === 0 ? i + 1 : i; j < n; j++) if (endsScalar(chunk[j]!)) return j;
      return -1;
    }
    let depth = this.depth;
    let inString = this.inString;
    let escaped = this.escaped;
    for (let j = i; j < n; j++) {
      const b = chunk[j]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === BACKSLASH) escaped = true;
        else if (b === QUOTE) {
          inString = false;
          if (depth === 0) return j + 1;
        }
      } else if (b === QUOTE) inString = true;
      else if (b === OPEN_OBJECT || b === OPEN_ARRAY) depth++;
      else if (b === CLOSE_OBJECT || b === CLOSE_ARRAY) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    this.depth = depth;
    this.inString = inString;
    this.escaped = escaped;
    return -1;
  }

  /** A value cut out whole: parsed and passed on. */
  private take(bytes: Buffer, at: number): void {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch (err) {
      this.fail((err as Error).message.replace(/ at position \d+.*$/s, '') + ' in the value that ends', at);
    }
    switch (this.valueRole) {
      case 'top':
        this.found({ kind: 'top', value });
        this.expect = 'done';
        return;
      case 'key':
        this.key = value as string;
        this.expect = 'colon';
        return;
      case 'member':
        this.found({ kind: 'member', key: this.key, value });
        this.expect = 'comma-or-close-object';
        return;
      case 'row':
        this.found({ kind: 'row', key: this.key, value });
        this.expect = 'comma-or-close-array';
        return;
    }
  }
}

function shownByte(b: number): string {
  return b >= 0x20 && b < 0x7f ? `'${String.fromCharCode(b)}'` : `byte 0x${b.toString(16).padStart(2, '0')}`;
}
