import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import { useConsole } from './app-context.js';
import type { Translate } from './i18n.js';

/** An error said in words: the API's own message, or what went wrong with the connection. */
export function errorText(t: Translate, err: unknown): string {
  if (err instanceof ApiFailure) return err.status === 0 ? t('networkError') : `${t('errorPrefix')} ${err.status}: ${err.message}`;
  return `${t('errorPrefix')}: ${err instanceof Error ? err.message : String(err)}`;
}

export function ErrorMessage(props: { error: unknown; onRetry?: () => void }) {
  const { t } = useConsole();
  if (!props.error) return null;
  return (
    <p class="error" role="alert">
      {errorText(t, props.error)}
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

/** Loads data on mount and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: undefined, error, loading: false }),
    );
    return () => {
      live = false;
    };
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
export function useAction(): {
  busy: boolean;
  error: unknown;
  notice: string | null;
  run: (action: () => Promise<string | null | void>) => Promise<void>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
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
  return { busy, error, notice, run, clear: () => (setError(null), setNotice(null)) };
}

export function Field(props: { id: string; label: string; children: ComponentChildren; hint?: string }) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && (
        <small id={`${props.id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
    </div>
  );
}

/** Keeps the tab title in step with the page (screen readers announce it). */
export function usePageTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} — Vigia`;
  }, [title]);
}
