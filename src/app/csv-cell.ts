/**
 * Text for a CSV cell that a spreadsheet opens as text, never as a formula: a cell that begins
 * with `=`, `+`, `-`, `@`, a tab or a carriage return is run by Excel, LibreOffice and Sheets
 * (`=cmd|' /C calc'!A0`), so it gets a leading apostrophe, which they show as nothing and read as
 * "this is text" (OWASP's advice for CSV injection). Every CSV the service writes goes through it.
 */
export function formulaSafe(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
