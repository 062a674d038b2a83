/** What every title file (titles-*.ts) writes with: a text in both languages, a title with its message. */
import type { Texts } from '../../orgs/language.js';

/** What a signal says: its title and its message, each in every language. */
export interface Said {
  title: Texts;
  message: Texts;
}

export const both = (en: string, pt: string): Texts => ({ en, 'pt-BR': pt });
export const said = (title: Texts, message: Texts): Said => ({ title, message });
/** A text written once per language. */
export const each = (f: (l: 'en' | 'pt-BR') => string): Texts => ({ en: f('en'), 'pt-BR': f('pt-BR') });
