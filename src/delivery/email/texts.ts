/** Every word an alert e-mail shows, in the organization's language (pt-BR by default, en). */
import type { Language } from '../../orgs/language.js';

export interface EmailTexts {
  severity: { error: string; info: string };
  headline: Record<string, string>;
  test: string;
  source: string;
  workspace: string;
  capacity: string;
  started: string;
  resolved: string;
  occurrences: string;
  view: string;
  ack: string;
  unsubscribe: string;
  footer: string;
  digestSubject: (n: number, period: string) => string;
  digestHeadline: (n: number) => string;
  period: { hourly: string; daily: string };
}

export const EMAIL_TEXTS: Record<Language, EmailTexts> = {
  'pt-BR': {
    severity: { error: 'Erro', info: 'Informação' },
    headline: {
      'alert.opened': 'Incidente aberto',
      'alert.acknowledged': 'Incidente reconhecido',
      'alert.escalated': 'Incidente escalado: ainda sem reconhecimento',
      'alert.recovered': 'Incidente resolvido',
    },
    test: 'Mensagem de teste do Vigia',
    source: 'Origem',
    workspace: 'Workspace',
    capacity: 'Capacidade',
    started: 'Início',
    resolved: 'Resolvido em',
    occurrences: 'Ocorrências',
    view: 'Ver no Vigia',
    ack: 'Reconhecer',
    unsubscribe: 'Não receber mais estes e-mails',
    footer: 'Mensagem automática do Vigia. Não responda a este endereço.',
    digestSubject: (n, period) => `[Vigia] Resumo ${period}: ${n} ${n === 1 ? 'aviso' : 'avisos'}`,
    digestHeadline: (n) => `${n} ${n === 1 ? 'aviso informativo' : 'avisos informativos'} neste período`,
    period: { hourly: 'por hora', daily: 'diário' },
  },
  en: {
    severity: { error: 'Error', info: 'Info' },
    headline: {
      'alert.opened': 'Incident opened',
      'alert.acknowledged': 'Incident acknowledged',
      'alert.escalated': 'Incident escalated: still not acknowledged',
      'alert.recovered': 'Incident resolved',
    },
    test: 'Vigia test message',
    source: 'Source',
    workspace: 'Workspace',
    capacity: 'Capacity',
    started: 'Started',
    resolved: 'Resolved',
    occurrences: 'Occurrences',
    view: 'View in Vigia',
    ack: 'Acknowledge',
    unsubscribe: 'Stop receiving these e-mails',
    footer: 'Automatic message from Vigia. Do not reply to this address.',
    digestSubject: (n, period) => `[Vigia] ${period} digest: ${n} ${n === 1 ? 'notice' : 'notices'}`,
    digestHeadline: (n) => `${n} informational ${n === 1 ? 'notice' : 'notices'} in this period`,
    period: { hourly: 'Hourly', daily: 'Daily' },
  },
};
