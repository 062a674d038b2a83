/** Titles of the freshness collector (freshness.ts; the catalog: titles.ts). */
import type { Texts } from '../../orgs/language.js';
import { both, type Said, said } from './titles-kit.js';

// ---- Freshness (freshness.ts) ----

/** "95 min", "3 h", "2 days" in each language. */
export function ageText(ms: number): Texts {
  const m = Math.round(ms / 60_000);
  if (m < 120) return both(`${m} min`, `${m} min`);
  if (m < 48 * 60) return both(`${Math.round(m / 60)} h`, `${Math.round(m / 60)} h`);
  const d = Math.round(m / 1440);
  return both(`${d} days`, `${d} dias`);
}

export function refreshMissed(name: string, workspace: string | null, slot: string, graceMinutes: number, why: 'running' | 'failed' | 'none'): Said {
  const en = { running: 'a refresh started but is still running', failed: 'the refresh after it failed', none: 'no refresh started' }[why];
  const pt = { running: 'uma atualização começou mas ainda está em execução', failed: 'a atualização seguinte falhou', none: 'nenhuma atualização começou' }[why];
  return said(
    both(`Semantic model ${name} missed its scheduled refresh`, `O modelo semântico ${name} perdeu a atualização agendada`),
    both(
      `Semantic model ${name} (workspace ${workspace}) was scheduled to refresh at ${slot} and no refresh completed within the grace period of ${graceMinutes} min: ${en}.`,
      `O modelo semântico ${name} (workspace ${workspace}) tinha atualização agendada para ${slot} e nenhuma terminou dentro da tolerância de ${graceMinutes} min: ${pt}.`,
    ),
  );
}

export function refreshMissedCaughtUp(name: string, completedAt: string, slot: string): Said {
  return said(
    both(`Semantic model ${name} refreshed`, `Modelo semântico ${name} atualizado`),
    both(`Semantic model ${name} completed a refresh at ${completedAt}, after the slot of ${slot} it had missed.`, `O modelo semântico ${name} concluiu uma atualização às ${completedAt}, depois do horário de ${slot} que tinha perdido.`),
  );
}

export function refreshNoLongerScheduled(name: string, slot: string | null): Said {
  return said(
    both(`Semantic model ${name} is no longer scheduled`, `O modelo semântico ${name} não tem mais agendamento`),
    both(`Semantic model ${name} has no enabled refresh schedule any more; the missed slot of ${slot} is no longer followed.`, `O modelo semântico ${name} não tem mais agendamento de atualização ativo; o horário perdido de ${slot} não é mais acompanhado.`),
  );
}

/** ageMs null: no completed refresh known. */
export function modelStale(name: string, workspace: string | null, maxAge: number | undefined, ageMs: number | null): Said {
  const age = ageMs === null ? null : ageText(ageMs);
  return said(
    both(`Data of ${name} is stale`, `Os dados de ${name} estão desatualizados`),
    both(
      `Semantic model ${name} (workspace ${workspace}) is older than its maximum age of ${maxAge} min: ${age ? `its last completed refresh was ${age.en} ago` : 'no completed refresh is in its recent history'}.`,
      `O modelo semântico ${name} (workspace ${workspace}) está mais velho que sua idade máxima de ${maxAge} min: ${age ? `a última atualização concluída foi há ${age['pt-BR']}` : 'não há atualização concluída no histórico recente'}.`,
    ),
  );
}

/** age null: the model has no maximum age any more. */
export function modelFresh(name: string, age: { ageMs: number; maxAge: number } | null): Said {
  const a = age ? ageText(age.ageMs) : null;
  return said(
    both(`Data of ${name} is fresh`, `Os dados de ${name} estão em dia`),
    age && a
      ? both(`Semantic model ${name} was refreshed ${a.en} ago, within its maximum age of ${age.maxAge} min.`, `O modelo semântico ${name} foi atualizado há ${a['pt-BR']}, dentro da idade máxima de ${age.maxAge} min.`)
      : both(`Semantic model ${name} has no maximum age any more.`, `O modelo semântico ${name} não tem mais idade máxima.`),
  );
}

export function tableStale(name: string, workspace: string | null, maxAge: number | undefined, ageMs: number | null): Said {
  const age = ageMs === null ? null : ageText(ageMs);
  return said(
    both(`Mirrored table ${name} is stale`, `A tabela espelhada ${name} está desatualizada`),
    both(
      `Mirrored table ${name} (workspace ${workspace}) is older than its maximum age of ${maxAge} min: ${age ? `its last sync was ${age.en} ago` : 'it reports no last sync time'}.`,
      `A tabela espelhada ${name} (workspace ${workspace}) está mais velha que sua idade máxima de ${maxAge} min: ${age ? `a última sincronização foi há ${age['pt-BR']}` : 'ela não informa a hora da última sincronização'}.`,
    ),
  );
}

export function tableFresh(name: string, age: { ageMs: number; maxAge: number } | null): Said {
  const a = age ? ageText(age.ageMs) : null;
  return said(
    both(`Mirrored table ${name} is fresh`, `A tabela espelhada ${name} está em dia`),
    age && a
      ? both(`Mirrored table ${name} synced ${a.en} ago, within its maximum age of ${age.maxAge} min.`, `A tabela espelhada ${name} sincronizou há ${a['pt-BR']}, dentro da idade máxima de ${age.maxAge} min.`)
      : both(`Mirrored table ${name} is no longer checked for age.`, `A idade da tabela espelhada ${name} não é mais verificada.`),
  );
}
