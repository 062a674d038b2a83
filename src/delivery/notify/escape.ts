/**
 * Escaping of platform-provided text (titles, messages, item, workspace and tenant names) for
 * each medium, so a name can neither format, link, mention nor break a line:
 * - card text (Adaptive Cards' TextBlock markdown subset, Teams `<at>` mentions and `{{DATE()}}`
 *   functions): every markup character is backslash-escaped;
 * - Slack mrkdwn: `&`, `<` and `>` become `&amp;`, `&lt;`, `&gt;` (Slack's documented escaping;
 *   they would otherwise open links and mentions such as `<!channel>`), and the formatting
 *   characters `*`, `_`, `~` and `` ` `` get a zero-width joiner after them so they stay literal.
 * Line breaks (CR, LF, U+2028/9) and other control characters become one space in both.
 */

const LINE_BREAKS_AND_CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line: control characters and line breaks become a space. */
export function oneLine(text: string): string {
  return text.replace(LINE_BREAKS_AND_CONTROLS, ' ');
}

/** Text for a TextBlock or Fact value of an Adaptive Card. */
export function cardText(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_~[\]()<>#{}|]/g, (c) => `\\${c}`)
    .replace(/^(\s*)([-+])/, '$1\\$2')
    .replace(/^(\s*\d+)\./, '$1\\.');
}

/** Text for Slack mrkdwn. */
export function mrkdwn(text: string): string {
  return oneLine(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[*_~`]/g, (c) => `${c}\u200d`);
}

/** A URL inside Slack's `<url|label>` link syntax (`|` and `>` would end it early). */
export function mrkdwnUrl(url: string): string {
  return url.replace(/&/g, '&amp;').replace(/</g, '%3C').replace(/>/g, '%3E').replace(/\|/g, '%7C');
}

/** Cuts to at most `max` UTF-16 code units, marking the cut, never splitting a surrogate pair. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let s = text.slice(0, Math.max(0, max - 1));
  if (/[\uD800-\uDBFF]$/.test(s)) s = s.slice(0, -1);
  return `${s}…`;
}
