/** The words only an alert e-mail shows (the shared ones are the notify model's, src/delivery/notify/texts.ts). */
import type { Language } from '../../orgs/language.js';

export interface EmailTexts {
  unsubscribe: string;
  footer: string;
  digest: { hourly: string; daily: string };
}

export const EMAIL_TEXTS: Record<Language, EmailTexts> = {
  'pt-BR': {
    unsubscribe: 'Não receber mais estes e-mails',
    footer: 'Mensagem automática do Vigia. Não responda a este endereço.',
    digest: { hourly: 'Resumo por hora', daily: 'Resumo diário' },
  },
  en: {
    unsubscribe: 'Stop receiving these e-mails',
    footer: 'Automatic message from Vigia. Do not reply to this address.',
    digest: { hourly: 'Hourly digest', daily: 'Daily digest' },
  },
};
