/**
 * Interface text. Brazilian Portuguese is the default (our users are Brazilian operations teams);
 * English is a switch. Every key exists in both languages: the `en` table is typed by `pt`.
 * The texts live in one file per area of the console (`i18n-<area>.ts`, a `…Pt` and a `…En`
 * table each); this file joins them into the one catalog behind `t()`. The four general areas
 * come last: where an area repeats one of their keys, theirs is the text shown.
 */
import { overviewEn, overviewPt } from './i18n-overview.js';
import { mirroringEn, mirroringPt } from './i18n-mirroring.js';
import { apiBudgetEn, apiBudgetPt } from './i18n-api-budget.js';
import { tenantsEn, tenantsPt } from './i18n-tenants.js';
import { freshnessEn, freshnessPt } from './i18n-freshness.js';
import { inventoryEn, inventoryPt } from './i18n-inventory.js';
import { inboundEn, inboundPt } from './i18n-inbound.js';
import { loadEn, loadPt } from './i18n-load.js';
import { commonEn, commonPt } from './i18n-common.js';
import { accessEn, accessPt } from './i18n-access.js';
import { destinationsEn, destinationsPt } from './i18n-destinations.js';
import { alertsEn, alertsPt } from './i18n-alerts.js';
import { changesEn, changesPt } from './i18n-changes.js';
import { notifyEn, notifyPt } from './i18n-notify.js';
import { readingEn, readingPt } from './i18n-reading.js';

const pt = {
  ...overviewPt,
  ...tenantsPt,
  ...mirroringPt,
  ...apiBudgetPt,
  ...loadPt,
  ...freshnessPt,
  ...inventoryPt,
  ...inboundPt,
  ...notifyPt,
  ...commonPt,
  ...accessPt,
  ...destinationsPt,
  ...alertsPt,
  ...changesPt,
  ...readingPt,
};

export type Texts = typeof pt;
export type TextKey = keyof Texts;

const en: Texts = {
  ...overviewEn,
  ...tenantsEn,
  ...mirroringEn,
  ...apiBudgetEn,
  ...loadEn,
  ...freshnessEn,
  ...inventoryEn,
  ...inboundEn,
  ...notifyEn,
  ...commonEn,
  ...accessEn,
  ...destinationsEn,
  ...alertsEn,
  ...changesEn,
  ...readingEn,
};

export type Lang = 'pt-BR' | 'en';
export const LANGS: Record<Lang, Texts> = { 'pt-BR': pt, en };

export type Translate = (key: TextKey, vars?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  const table = LANGS[lang];
  // Plurals: a key with a `…One` twin ("{n} abertos" / "1 aberto") says the singular when n is 1.
  const pick = (key: TextKey, vars?: Record<string, string | number>): string => {
    const one = `${key}One` as TextKey;
    return vars?.n === 1 && one in table ? table[one] : table[key];
  };
  return (key, vars) => pick(key, vars).replace(/\{(\w+)\}/g, (_m, name: string) => String(vars?.[name] ?? `{${name}}`));
}

const LANG_KEY = 'vigia.lang';
export function loadLang(): Lang {
  return localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'pt-BR';
}
export function saveLang(lang: Lang): void {
  localStorage.setItem(LANG_KEY, lang);
}
