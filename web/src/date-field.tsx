import { useConsole } from './app-context.js';
import { Field } from './components.js';
import { datePattern, parseDateInput } from './dates.js';
import type { Lang, Translate } from './i18n.js';

/**
 * A date (and time) field typed in the console's language, with the pattern as its hint
 * (dates.ts). Invalid values are said by the form through `error`, as for every Field.
 */
export function DateField(props: { id: string; label: string; value: string; onValue: (value: string) => void; withTime: boolean; error?: string | null }) {
  const { t, lang } = useConsole();
  const pattern = datePattern(lang, props.withTime);
  return (
    <Field id={props.id} label={props.label} hint={t('dateHint', { pattern })} error={props.error}>
      <input
        id={props.id}
        type="text"
        autoComplete="off"
        spellcheck={false}
        placeholder={pattern}
        value={props.value}
        onInput={(e) => props.onValue((e.target as HTMLInputElement).value)}
      />
    </Field>
  );
}

/**
 * A date field's text → the ISO instant to send (null when empty), or the message saying why
 * it is refused (naming the field and the pattern).
 */
export function readDateField(
  t: Translate,
  lang: Lang,
  field: string,
  text: string,
  opts: { withTime: boolean; endOfDay?: boolean },
): { iso: string | null; error?: undefined } | { iso?: undefined; error: string } {
  if (!text.trim()) return { iso: null };
  const parsed = parseDateInput(lang, text, opts);
  if (parsed.ok) return { iso: parsed.date.toISOString() };
  const pattern = datePattern(lang, opts.withTime);
  return { error: parsed.reason === 'format' ? t('dateFormat', { field, pattern }) : t('dateInvalid', { field }) };
}
