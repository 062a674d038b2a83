/**
 * Reading loosely typed vendor answers. Every string Vigia keeps from a platform answer passes
 * through textOf, so it is storable text: PostgreSQL refuses U+0000 in text and jsonb (one such
 * name made every commit of a run fail, and the run was read again forever), and a lone UTF-16
 * surrogate is not Unicode (stored, it would become U+FFFD and merge two different names). The
 * NUL is dropped and a lone surrogate becomes U+FFFD here, once, for every collector.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDFFF]/u;

/** A field that should be a string, as storable text, or '' when it is not a string. */
export function textOf(v: unknown): string {
  if (typeof v !== 'string') return '';
  return UNSTORABLE.test(v) ? v.replaceAll('\u0000', '').replace(/[\uD800-\uDFFF]/gu, '\uFFFD') : v;
}

/** The strings of a field that should be an array of strings, as storable text; [] when it is not an array. */
export function textsOf(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').map(textOf) : [];
}
