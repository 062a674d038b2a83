/**
 * Every Portuguese (pt-BR) text Vigia sends to an IT-service-management tool or shows about one
 * (those texts are in Portuguese), in one module so wording is reviewed and changed in one place.
 * Functions take the alert snapshot and return plain text; length limits are applied by the
 * connectors, which know each vendor's limits.
 */
import type { AlertSnapshot } from '../../outbox/index.js';

const SEVERITY: Record<AlertSnapshot['severity'], string> = { error: 'erro', info: 'informativo' };

function where(a: AlertSnapshot): string {
  const parts = [`${a.sourceType} ${a.sourceId}`];
  if (a.workspaceName) parts.push(`workspace ${a.workspaceName}`);
  if (a.capacityName) parts.push(`capacidade ${a.capacityName}`);
  return parts.join(', ');
}

export const texts = {
  /** Prefix of a test incident's title, so nobody mistakes it for a real one. */
  testPrefix: '[TESTE Vigia] ',
  /** PagerDuty escalation marker: an escalation is a new trigger with this title prefix. */
  escalatedPrefix: '[ESCALADO] ',

  title(a: AlertSnapshot, test = false): string {
    return `${test ? texts.testPrefix : ''}Vigia: ${a.title}`;
  },

  /** Longer description: what, where, since when, link back. */
  description(a: AlertSnapshot, test = false): string {
    return [
      test ? 'Este é um incidente de teste criado pela ação "Testar" do Vigia. Ele será fechado em seguida.' : null,
      `Alerta do Vigia: ${a.title}`,
      `Mensagem: ${a.message}`,
      `Origem: ${where(a)}`,
      `Severidade: ${SEVERITY[a.severity] ?? a.severity}`,
      `Aberto em: ${a.openedAt}`,
      `Ocorrências: ${a.failureCount}`,
      `Detalhes: ${a.url}`,
    ]
      .filter((l): l is string => l !== null)
      .join('\n');
  },

  acknowledged(a: AlertSnapshot): string {
    return `Alerta reconhecido no Vigia: ${a.title}. Alguém está cuidando do incidente. Detalhes: ${a.url}`;
  },

  escalated(a: AlertSnapshot): string {
    return `Alerta ESCALADO pelo Vigia: ${a.title}. O incidente continua aberto e sem reconhecimento além do prazo da política de escalonamento. Detalhes: ${a.url}`;
  },

  recovered(a: AlertSnapshot): string {
    const at = a.resolvedAt ? ` em ${a.resolvedAt}` : '';
    return `Alerta resolvido no Vigia${at}: ${a.title}. O recurso se recuperou ou o incidente foi marcado como resolvido. Detalhes: ${a.url}`;
  },

  /** ServiceNow close_notes. */
  closeNotes(a: AlertSnapshot): string {
    return texts.recovered(a);
  },

  // Test action (open a sample incident, then close it) — shown to the user in the console.
  testOk: 'Teste concluído: o incidente de teste foi aberto e fechado com sucesso.',
  testOpenFailed(reason: string): string {
    return `Teste falhou: não foi possível abrir o incidente de teste (${reason}). Nada foi criado no destino.`;
  },
  testCloseFailed(reason: string, ref: string | null): string {
    const which = ref ? ` (${ref})` : '';
    return `O incidente de teste foi aberto, mas não foi possível fechá-lo (${reason}). Por favor, feche manualmente o incidente de teste${which} na ferramenta de destino.`;
  },
} as const;
