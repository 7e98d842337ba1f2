/**
 * How deep a JSON body may nest lists and objects. The interface's bodies are flat (fields of
 * text); the margin is for callers that wrap them, not for data. Deeper bodies are refused before
 * they are parsed, so that nothing that walks a body (the idempotency fingerprint, the panel's
 * NUL check) can recurse past the stack.
 */
export const MAX_BODY_DEPTH = 32;

/** Code of the error a body nested past MAX_BODY_DEPTH is refused with (a 400). */
export const BODY_TOO_DEEP = 'VAC_BODY_TOO_DEEP';

/**
 * Whether JSON text opens more than `max` lists or objects inside one another. One pass over the
 * characters with a counter, never a recursion; brackets inside strings (escapes included) do
 * not count. Malformed text is left for the parser to refuse.
 */
export function nestsDeeperThan(text: string, max = MAX_BODY_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // a backslash: the next character is escaped
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}

/** The error a parser gives for a body nested too deep: a 400 the error handlers answer in their envelope. */
export function bodyTooDeep(): Error {
  return Object.assign(new Error(`body nested more than ${MAX_BODY_DEPTH} levels deep`), { statusCode: 400, code: BODY_TOO_DEEP });
}
