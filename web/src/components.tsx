import { cloneElement, isValidElement, toChildArray, type ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import { useConsole } from './app-context.js';
import { errorCodeText } from './errors.js';
import type { Translate } from './i18n.js';

/**
 * An error said in words of the chosen language: the sentence for the API's error `code` (the
 * server's own message is English; it stays available as a detail, marked as English).
 */
export function errorText(t: Translate, err: unknown): string {
  if (err instanceof ApiFailure) return err.status === 0 ? t('networkError') : errorCodeText(t, err.code, err.status);
  return `${t('errorPrefix')}: ${err instanceof Error ? err.message : String(err)}`;
}

export function ErrorMessage(props: { error: unknown; onRetry?: () => void }) {
  const { t, lang } = useConsole();
  if (!props.error) return null;
  const detail = props.error instanceof ApiFailure && props.error.status !== 0 ? props.error.message : '';
  return (
    <p class="error" role="alert">
      {errorText(t, props.error)}
      {detail && (
        <>
          {' '}
          <small class="error-detail">
            {t('serverSaid')} <span lang={lang === 'en' ? undefined : 'en'}>{detail}</span>
          </small>
        </>
      )}
      {props.onRetry && (
        <button type="button" class="link" onClick={props.onRetry}>
          {t('retry')}
        </button>
      )}
    </p>
  );
}

export function Notice(props: { children: ComponentChildren }) {
  return (
    <p class="notice" role="status">
      {props.children}
    </p>
  );
}

export function Empty(props: { children: ComponentChildren }) {
  return <p class="empty">{props.children}</p>;
}

/**
 * Loads data on mount and whenever `deps` change; `reload` runs it again. `load` receives a
 * signal that aborts when the page is left or the deps change, so no request outlives its page.
 */
export function useLoad<T>(
  load: (signal: AbortSignal) => Promise<T>,
  deps: unknown[],
): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const abort = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    load(abort.signal).then(
      (data) => !abort.signal.aborted && setState({ data, error: null, loading: false }),
      (error) => !abort.signal.aborted && setState({ data: undefined, error, loading: false }),
    );
    return () => abort.abort();
    // `load` is a new closure on every render; `deps` say when it really changed.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { ...state, reload };
}

/** Shows a value that the server returns only once (a signing secret, an API key). */
export function ShownOnce(props: { title: string; warning: string; value: string; onDone: () => void }) {
  const { t } = useConsole();
  const [copied, setCopied] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setCopied('yes');
    } catch {
      setCopied('failed');
    }
  };
  return (
    <section class="once" aria-labelledby="once-title" data-testid="shown-once">
      <h3 id="once-title">{props.title}</h3>
      <p class="warning">
        <strong>{props.warning}</strong>
      </p>
      <div class="once-value">
        <label class="sr-only" for="once-value">
          {props.title}
        </label>
        <input id="once-value" readOnly value={props.value} onFocus={(e) => (e.target as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>
          {copied === 'yes' ? t('copied') : t('copy')}
        </button>
      </div>
      {copied === 'failed' && <p class="error">{t('copyFailed')}</p>}
      <button type="button" class="secondary" onClick={props.onDone}>
        {t('secretDone')}
      </button>
    </section>
  );
}

/** A destructive action in two steps: the button, then an inline confirmation that names what happens. */
export function ConfirmAction(props: { label: string; question: string; onConfirm: () => Promise<void> | void; danger?: boolean; accessibleLabel?: string }) {
  const { t } = useConsole();
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirmRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirmRef.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class={props.danger ? 'danger' : 'secondary'} aria-label={props.accessibleLabel} onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  }
  return (
    // biome-ignore lint/a11y/useSemanticElements: an inline, named set of buttons; a <fieldset> is not allowed inside phrasing content
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button
        ref={confirmRef}
        type="button"
        class={props.danger ? 'danger' : ''}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {t('confirm')}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        {t('cancel')}
      </button>
    </span>
  );
}

/** Runs an action, keeping its error and a success notice for the page to show. */
/**
 * Removing (revoking, ending) one row of a list after its confirmation: `remove(id)` sends DELETE
 * `{path}/{id}` and calls `onDone` (the list reloads); `error` is what to show when it failed.
 */
export function useRemoval(path: string, onDone: () => void): { error: unknown; remove: (id: string) => Promise<void> } {
  const { call } = useConsole();
  const action = useAction();
  return {
    error: action.error,
    remove: (id) =>
      action.run(async () => {
        await call('DELETE', `${path}/${encodeURIComponent(id)}`);
        onDone();
      }),
  };
}

export function useAction(): {
  busy: boolean;
  error: unknown;
  notice: string | null;
  // biome-ignore lint/suspicious/noConfusingVoidType: an action returns the notice to show, or nothing at all (`async () => { … }` is Promise<void>, which `undefined` would refuse)
  run: (action: () => Promise<string | null | void>) => Promise<void>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // biome-ignore lint/suspicious/noConfusingVoidType: as in the signature above
  const run = async (action: () => Promise<string | null | void>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const msg = await action();
      if (msg) setNotice(msg);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const clear = () => {
    setError(null);
    setNotice(null);
  };
  return { busy, error, notice, run, clear };
}

/**
 * A labelled control: the one mechanism of every form for saying a value is wrong. With
 * `error`, the message shows under the control as `{id}-error`, and the control (the child whose
 * `id` is the field's) gets `aria-invalid="true"` and `aria-describedby` naming the message (and
 * the hint), so a screen reader says that it is invalid and why.
 */
export function Field(props: { id: string; label: string; children: ComponentChildren; hint?: string; error?: string | null }) {
  const described = [props.hint ? `${props.id}-hint` : '', props.error ? `${props.id}-error` : ''].filter(Boolean).join(' ');
  const children = toChildArray(props.children).map((child) =>
    isValidElement(child) && (child.props as { id?: string }).id === props.id
      ? cloneElement(child, { 'aria-invalid': props.error ? 'true' : undefined, 'aria-describedby': described || undefined })
      : child,
  );
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {children}
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <small id={`${props.id}-error`} class="field-error" role="alert">
          {props.error}
        </small>
      )}
    </div>
  );
}

/** Attributes of a control whose value was refused, for controls outside a `Field` (a group of checkboxes). */
export function invalidProps(id: string, error: string | null | undefined): { 'aria-invalid'?: 'true'; 'aria-describedby'?: string } {
  return error ? { 'aria-invalid': 'true', 'aria-describedby': `${id}-error` } : {};
}

/**
 * The refused fields of a form, checked before anything is sent: `check` keeps the errors (field
 * → message) and moves focus to the first refused control, whose id `idOf` gives; it answers
 * whether the form may be sent.
 */
export function useFieldErrors<K extends string>(idOf: (field: K) => string) {
  const [errors, setErrors] = useState<Partial<Record<K, string>>>({});
  const check = (found: Partial<Record<K, string>>): boolean => {
    setErrors(found);
    const first = Object.keys(found)[0] as K | undefined;
    // After the render that marks it invalid, so the screen reader reads the message with it.
    if (first !== undefined) setTimeout(() => document.getElementById(idOf(first))?.focus(), 0);
    return first === undefined;
  };
  return { errors, check, clear: () => setErrors({}) };
}

/** Announces that a page's data is loading (a polite live region). */
export function Loading() {
  const { t } = useConsole();
  return (
    <p class="loading" role="status" aria-live="polite">
      {t('loading')}
    </p>
  );
}

/** Keeps the tab title in step with the page (screen readers announce it). */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} — Vigia`;
  }, [title]);
}
