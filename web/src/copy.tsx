import { useState } from 'preact/hooks';
import { useConsole } from './app-context.js';

/**
 * A value shown as code with a "Copiar" button beside it (the button names what it copies for
 * screen readers). Copied, the button says so; when the browser refuses the clipboard, the text
 * stays selectable and a line says to copy it by hand.
 */
export function CopyableId(props: { value: string; name: string }) {
  const { t } = useConsole();
  const [state, setState] = useState<'no' | 'yes' | 'failed'>('no');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value);
      setState('yes');
    } catch {
      setState('failed');
    }
  };
  return (
    <span class="copyable" data-copy={props.value}>
      <code>{props.value}</code>{' '}
      <button type="button" class="secondary small" aria-label={t('copyId', { name: props.name })} onClick={copy}>
        {state === 'yes' ? t('copied') : t('copy')}
      </button>
      {state === 'failed' && <span class="error"> {t('copyFailed')}</span>}
    </span>
  );
}
