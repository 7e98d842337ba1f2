/**
 * Request parameters by name, matched case-insensitively (callers send `vaclaboraSabado`,
 * `numerodocumento`). A name given twice is kept as a conflict rather than silently resolved.
 */
export class Fields {
  private readonly values = new Map<string, string>();
  private readonly repeated = new Set<string>();
  private readonly invalid = new Set<string>();
  /** Each name as the caller first spelled it, to be named back in a refusal. */
  private readonly spelled = new Map<string, string>();

  constructor(...sources: unknown[]) {
    for (const source of sources) {
      if (!source || typeof source !== 'object') continue;
      for (const [key, raw] of Object.entries(source as Record<string, unknown>)) {
        const k = key.toLowerCase();
        if (!this.spelled.has(k)) this.spelled.set(k, key);
        if (this.values.has(k) || this.invalid.has(k)) this.repeated.add(k);
        if (Array.isArray(raw)) {
          this.repeated.add(k);
          continue;
        }
        if (raw === null || raw === undefined) continue;
        // A NUL character can never be stored (PostgreSQL text refuses it): such a value is not
        // a value the interface accepts.
        if (typeof raw === 'string') {
          if (raw.includes('\u0000')) this.invalid.add(k);
          else this.values.set(k, raw.trim());
        } else if (typeof raw === 'number' || typeof raw === 'boolean') this.values.set(k, String(raw));
        else this.invalid.add(k);
      }
    }
  }

  /** The trimmed value, or undefined when absent or empty. */
  get(name: string): string | undefined {
    const v = this.values.get(name.toLowerCase());
    return v === '' ? undefined : v;
  }

  /** The same fields with one value replaced (a normalized spelling of what the caller sent). */
  with(name: string, value: string): Fields {
    const copy = new Fields();
    for (const [k, v] of this.values) copy.values.set(k, v);
    for (const k of this.repeated) copy.repeated.add(k);
    for (const k of this.invalid) copy.invalid.add(k);
    for (const [k, v] of this.spelled) copy.spelled.set(k, v);
    if (!this.isAmbiguous(name)) copy.values.set(name.toLowerCase(), value);
    return copy;
  }

  /** The first name that came more than once (in any case, or as a list), as the caller first spelled it. */
  firstRepeated(): string | undefined {
    for (const k of this.repeated) return this.spelled.get(k);
    return undefined;
  }

  /** True when the name came more than once, as something other than a plain value, or with a NUL. */
  isAmbiguous(name: string): boolean {
    const k = name.toLowerCase();
    return this.repeated.has(k) || this.invalid.has(k);
  }
}

/** The responsible's e-mail parameter of the writes and that of the reads, which callers mix up. */
const EMAIL_PARAMETERS = ['emailUserResponsable', 'emailResponsable'];

/**
 * When an endpoint's e-mail parameter `wanted` is missing but the other family's was sent: a
 * sentence naming the one this endpoint takes, added to the answer the interface gives for a
 * missing e-mail. Null otherwise, and the answer stays as the interface has it.
 */
export function emailNameHint(fields: Fields, wanted: string): string | null {
  if (!EMAIL_PARAMETERS.includes(wanted) || fields.get(wanted) !== undefined) return null;
  const sent = EMAIL_PARAMETERS.find((n) => n !== wanted && fields.get(n) !== undefined);
  return sent ? `Este endpoint lo recibe en ${wanted}, no en ${sent}.` : null;
}

/** An e-mail as logs show it when it may be someone else's: first letter and domain. */
export function maskEmail(email: string | null): string | null {
  if (!email) return null;
  const at = email.indexOf('@');
  return at > 0 ? `${email[0]}***${email.slice(at)}` : '***';
}

export const flagText = (b: boolean | null): string | null => (b === null ? null : b ? '1' : '0');

export { bogotaTimestamp } from '../domain/dates.ts';
