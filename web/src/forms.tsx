/**
 * The parts every form is made of: its values as typed, a text control in its `Field`, a select
 * in its `Field`, the list of refusals, and the titled form that sends through an action (its
 * notice, its failure, its submit button). The console's forms compose these.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ErrorMessage, Field, Notice, type useAction } from './components.js';

type Action = ReturnType<typeof useAction>;

/**
 * A form's values as typed. `onInput(k)` is the handler of field `k`'s control; it sets the value
 * from the latest state, not this render's, so two fields filled before a re-render both count.
 */
export function useFormValues<F extends Record<string, string>>(initial: F) {
  const [values, setValues] = useState<F>(initial);
  const setValue = (k: keyof F, value: string) => setValues((prev) => ({ ...prev, [k]: value }));
  const onInput = (k: keyof F) => (e: Event) => setValue(k, (e.target as HTMLInputElement).value);
  return { values, setValues, setValue, onInput };
}

/** The attributes the console's text controls use beside their value. */
interface InputAttrs {
  type?: string;
  maxLength?: number;
  inputMode?: 'numeric' | 'text';
  autoComplete?: string;
  disabled?: boolean;
}

/** A labelled text input (a textarea with `rows`), its refusal and hint said by `Field`. */
export function TextField(props: InputAttrs & { id: string; label: string; value: string; onInput: (e: Event) => void; rows?: number; error?: string | null; hint?: string }) {
  const { id, label, value, onInput, rows, error, hint, ...attrs } = props;
  return (
    <Field id={id} label={label} error={error} hint={hint}>
      {rows ? (
        <textarea id={id} rows={rows} value={value} onInput={onInput} autoComplete={attrs.autoComplete} disabled={attrs.disabled} />
      ) : (
        <input id={id} value={value} onInput={onInput} {...attrs} />
      )}
    </Field>
  );
}

/** A labelled select of `[value, text]` options. */
export function SelectField(props: { id: string; label: string; value: string; onValue: (value: string) => void; options: Array<readonly [string, string]> }) {
  return (
    <Field id={props.id} label={props.label}>
      <select id={props.id} value={props.value} onChange={(e) => props.onValue((e.target as HTMLSelectElement).value)}>
        {props.options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** The reasons a form was not sent, read out at once. */
export function Problems(props: { problems: string[] }) {
  if (props.problems.length === 0) return null;
  return (
    <ul class="error" role="alert">
      {props.problems.map((p) => (
        <li key={p}>{p}</li>
      ))}
    </ul>
  );
}

/**
 * A titled form sent through `action` (`useAction`): the heading names the form, `onSubmit` runs
 * after the browser's submit is stopped, and below the fields come the action's notice, its
 * failure and the submit button (disabled while it runs).
 */
export function ActionForm(props: {
  titleId: string;
  title: string;
  heading?: 'h2' | 'h3' | 'h4';
  help?: ComponentChildren;
  class?: string;
  testId?: string;
  action: Action;
  submitLabel: string;
  submitClass?: string;
  /** What stands beside the submit button (a reset, a second action). */
  beside?: ComponentChildren;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  const Heading = props.heading ?? 'h2';
  const submit = (
    <button type="submit" class={props.submitClass} disabled={props.action.busy}>
      {props.submitLabel}
    </button>
  );
  return (
    <form
      class={props.class}
      noValidate
      aria-labelledby={props.titleId}
      data-testid={props.testId}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      <Heading id={props.titleId}>{props.title}</Heading>
      {props.help && <p class="muted">{props.help}</p>}
      {props.children}
      {props.action.notice && <Notice>{props.action.notice}</Notice>}
      <ErrorMessage error={props.action.error} />
      {props.beside ? (
        <p>
          {submit} {props.beside}
        </p>
      ) : (
        submit
      )}
    </form>
  );
}
