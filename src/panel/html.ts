import escapeHtml from 'escape-html';

/** Markup already escaped: what `html` returns, and the only thing it inserts as it is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}

/**
 * Template literal for markup: every interpolated value is escaped unless it is itself Html;
 * arrays are joined and null, undefined and false leave nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/**
 * An address whose every interpolated value is URL-encoded, whatever it is part of (a path
 * segment, a query value, a fragment). Put into markup through `html`, which then escapes `&`.
 */
export function url(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += encodeURIComponent(String(values[i])) + strings[i + 1]!;
  return out;
}

const PESOS = new Intl.NumberFormat('es-CO', { style: 'currency', currency: 'COP', maximumFractionDigits: 0 });
const DAYS = new Intl.NumberFormat('es-CO', { maximumFractionDigits: 2 });
const MONTH_NAMES = [
  'enero',
  'febrero',
  'marzo',
  'abril',
  'mayo',
  'junio',
  'julio',
  'agosto',
  'septiembre',
  'octubre',
  'noviembre',
  'diciembre',
];

export const pesos = (n: number) => PESOS.format(n);
export const days = (n: number) => DAYS.format(n);
/** "2026-12" → "diciembre de 2026". */
export function monthName(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${MONTH_NAMES[m - 1]} de ${y}`;
}
/** "2026-12" moved `by` months: "2027-01" for 1. */
export function shiftMonth(month: string, by: number): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const d = new Date(Date.UTC(y, m - 1 + by, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}
/** "2026-12-07" → "7 dic 2026". */
export function shortDate(d: string): string {
  const [y, m, day] = d.split('-').map(Number) as [number, number, number];
  return `${day} ${MONTH_NAMES[m - 1]!.slice(0, 3)} ${y}`;
}
/** "2026-12-07" → "7 de diciembre de 2026", the form sentences use. */
export function longDate(d: string): string {
  const [y, m, day] = d.split('-').map(Number) as [number, number, number];
  return `${day} de ${MONTH_NAMES[m - 1]} de ${y}`;
}
const BOGOTA = new Intl.DateTimeFormat('es-CO', { timeZone: 'America/Bogota', dateStyle: 'medium', timeStyle: 'medium' });
/** An instant as people in Bogotá read it. */
export const bogotaTime = (iso: string | null) => (iso ? BOGOTA.format(new Date(iso)) : '');
