/** Reading loosely typed vendor answers: a field that should be a string, or '' when it is not. */
export function textOf(v: unknown): string {
  return typeof v === 'string' ? v : '';
}
