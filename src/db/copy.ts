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
