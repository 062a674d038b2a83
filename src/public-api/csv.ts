/**
 * The CSV of a public list page: RFC 4180, CRLF after every record, UTF-8 with a byte-order mark,
 * and text cells that a spreadsheet could run as a formula neutralized with a leading `'`.
 */

/** Cells starting with one of these run as a formula (tab, CR and LF start DDE payloads). */
const FORMULA_START = /^[=+\-@\t\r\n]/;
/**
 * What spreadsheets skip or show as nothing before a cell's first visible character: white
 * space of any kind (NBSP, ideographic space, the BOM U+FEFF), invisible format characters
 * (zero-width space and joiners, bidirectional marks, word joiner, soft hyphen) and controls.
 */
const INVISIBLE_PREFIX = /^[\p{White_Space}\p{Cf}\p{Cc}]+/u;
/** The minus sign U+2212 (no compatibility mapping to `-`, but read as one). */
const MINUS_SIGN = '\u2212';

/**
 * True when a spreadsheet could read the text as a formula: it starts with `=`, `+`, `-`, `@`,
 * tab, CR or LF — or with one of the four after invisible characters, or as a compatibility
 * form (fullwidth `＝＋－＠`, small `﹦﹢﹣﹫`), which NFKC folds into the ASCII sign.
 */
export function looksLikeFormula(text: string): boolean {
  if (FORMULA_START.test(text)) return true;
  const first = String.fromCodePoint(text.replace(INVISIBLE_PREFIX, '').codePointAt(0) ?? 0x20);
  return first === MINUS_SIGN || FORMULA_START.test(first.normalize('NFKC'));
}

/** One RFC 4180 field: quoted when it holds a comma, quote, CR or LF; quotes doubled. */
function field(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  const s = String(v);
  return field(looksLikeFormula(s) ? `'${s}` : s);
}

/** RFC 4180 CSV, CRLF after every record, UTF-8 with BOM, header row = `fields` in the documented order. */
export function toCsv(fields: readonly string[], rows: ReadonlyArray<Record<string, unknown>>): string {
  const lines = [fields.map(field).join(',')];
  for (const r of rows) lines.push(fields.map((f) => cell(r[f])).join(','));
  return `\ufeff${lines.join('\r\n')}\r\n`;
}
