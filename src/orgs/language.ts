/**
 * The languages person-facing texts exist in, and an organization's choice among them. Vigia's
 * own collectors write every title and message in both (monitoring/messages/titles.ts); the alert stores
 * the one its organization reads (docs/alerts.md, "Language of titles").
 */
import type { Queryable } from '../db/index.js';

export type Language = 'pt-BR' | 'en';
export const DEFAULT_LANGUAGE: Language = 'pt-BR';

/** One text in every language (the project's single bilingual text type). */
export type Texts = { 'pt-BR': string; en: string };

/** The organization's language; DEFAULT_LANGUAGE for an id that names none. */
export async function orgLanguage(q: Queryable, orgId: string): Promise<Language> {
  const { rows } = await q.query<{ language: Language }>('SELECT language FROM orgs WHERE id = $1', [orgId]);
  return rows[0]?.language ?? DEFAULT_LANGUAGE;
}
