import escapeHtml from 'escape-html';

/** Markup already escaped: what `html` returns, and the only thing it inserts as it is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/**
 * Bidirectional embedding, override and isolate controls (U+202A-U+202E, U+2066-U+2069): in a
 * name they turn the text after them around ("Juan\u202Egnp.exe" reads "Juanexe.png"), so what
 * a page shows would not be what is stored. Shown as U+FFFD, a visible mark that something is there.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

function render(v: unknown): string {
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v).replace(BIDI_CONTROLS, '\uFFFD'));
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
const COUNTS = new Intl.NumberFormat('es-CO');
/** A count as people read it: "100.100". */
export const count = (n: number | bigint) => COUNTS.format(n);
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
/** A message of the interface with its ISO dates written as the panel writes them. */
export const inPanelDates = (text: string) => text.replace(/\b\d{4}-\d{2}-\d{2}\b/g, (d) => shortDate(d));
/** "2026-12-07" → "7 de diciembre de 2026", the form sentences use. */
export function longDate(d: string): string {
  const [y, m, day] = d.split('-').map(Number) as [number, number, number];
  return `${day} de ${MONTH_NAMES[m - 1]} de ${y}`;
}
const BOGOTA = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Bogota',
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
/** An instant as people in Bogotá read it: "26 nov 2026, 16:00". */
export function bogotaTime(iso: string | null): string {
  if (!iso) return '';
  const parts = Object.fromEntries(BOGOTA.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${parts.day} ${MONTH_NAMES[Number(parts.month) - 1]!.slice(0, 3)} ${parts.year}, ${parts.hour}:${parts.minute}`;
}
/** "2026-12" → "dic 2026", as tables write a month. */
export function shortMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${MONTH_NAMES[m - 1]!.slice(0, 3)} ${y}`;
}

/** "2026-12-07" → "07/12/2026": how the date fields show a date (day, month, year). */
export const dayMonthYear = (d: string) => `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)}`;
const DMY_RE = /^\s*(\d{1,2})\s*[/.-]\s*(\d{1,2})\s*[/.-]\s*(\d{4})\s*$/;
/**
 * A date field's text as the interface's YYYY-MM-DD: day, month and year ("7/12/2026", "07-12-2026"),
 * whatever the browser's language; anything else is returned as it was typed, for the interface's
 * own check to name.
 */
export function fromDayMonthYear(text: string): string {
  const m = DMY_RE.exec(text);
  return m ? `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}` : text.trim();
}

/** A date field that reads and writes day, month and year, the same in every browser. */
export function dateField(o: { id: string; label: string; value: string; hint?: string }): Html {
  const shown = /^\d{4}-\d{2}-\d{2}$/.test(o.value) ? dayMonthYear(o.value) : o.value;
  return html`<div class="field"><label for="${o.id}">${o.label}</label>
  <input id="${o.id}" name="${o.id}" type="text" inputmode="numeric" autocomplete="off" placeholder="DD/MM/AAAA" required
    aria-describedby="${o.id}-hint" value="${shown}">
  <span class="hint" id="${o.id}-hint">${o.hint ?? 'Día, mes y año: 07/12/2026'}</span></div>`;
}

/** A month chosen from a list (a year either side of today's, and the one shown): no browser's month picker. */
export function monthSelect(o: { id: string; label: string; month: string; today: string }): Html {
  const months = Array.from({ length: 25 }, (_, i) => shiftMonth(o.today.slice(0, 7), i - 12));
  if (!months.includes(o.month)) months.push(o.month);
  return html`<div class="field"><label for="${o.id}">${o.label}</label>
  <select id="${o.id}" name="${o.id}">${months
    .sort()
    .map((m) => html`<option value="${m}"${m === o.month ? html` selected` : ''}>${monthName(m)}</option>`)}</select></div>`;
}

/** A PILA code by its last characters, the whole code a press away (35 characters dominate a row). */
export function pilaCode(code: string): Html {
  if (code.length <= 16) return html`<code>${code}</code>`;
  return html`<details class="pila"><summary><code>…${code.slice(-8)}</code><span class="visually-hidden">, ver el código PILA completo</span></summary><code>${code}</code></details>`;
}
