import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Call } from './api.js';
import type { Lang, Translate } from './i18n.js';

export interface Console {
  lang: Lang;
  t: Translate;
  call: Call;
  /** The chosen organization (null until one is chosen). */
  orgId: string | null;
  chooseOrg(orgId: string): void;
}

export const ConsoleContext = createContext<Console | null>(null);

export function useConsole(): Console {
  const c = useContext(ConsoleContext);
  if (!c) throw new Error('ConsoleContext missing');
  return c;
}

/** `call` for paths under the chosen organization. */
export function orgPath(orgId: string, path: string): string {
  return `/orgs/${encodeURIComponent(orgId)}${path}`;
}
