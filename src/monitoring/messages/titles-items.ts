/** Titles of the item collectors: Fabric jobs, mirroring, data sources, semantic-model refreshes (the catalog: titles.ts). */
import type { Texts } from '../../orgs/language.js';
import { both, type Said, said } from './titles-kit.js';

// ---- Fabric jobs (jobs.ts) ----

const JOB_LABEL: Record<string, Texts> = {
  DataPipeline: both('Pipeline', 'Pipeline'),
  Notebook: both('Notebook', 'Notebook'),
  SparkJobDefinition: both('Spark job definition', 'Definição de job Spark'),
  Dataflow: both('Dataflow', 'Dataflow'),
  CopyJob: both('Copy job', 'Job de cópia'),
};
const jobLabel = (type: string): Texts => JOB_LABEL[type] ?? both(type, type);

/** `failure` is the platform's "Code: message", verbatim. */
export function jobFailed(type: string, name: string, workspace: string | null, failure: string): Said {
  const l = jobLabel(type);
  return said(both(`${l.en} ${name} failed`, `${l['pt-BR']} ${name} falhou`), both(`${l.en} ${name} (workspace ${workspace}) failed: ${failure}`.slice(0, 1000), `${l['pt-BR']} ${name} (workspace ${workspace}) falhou: ${failure}`.slice(0, 1000)));
}

export function jobSucceeded(type: string, name: string): Said {
  const l = jobLabel(type);
  return said(both(`${l.en} ${name} succeeded`, `${l['pt-BR']} ${name} voltou a funcionar`), both(`${l.en} ${name} completed a run again.`, `${l['pt-BR']} ${name} concluiu uma execução de novo.`));
}

export function jobGone(type: string, name: string): Said {
  const l = jobLabel(type);
  return said(both(`${l.en} ${name} is gone`, `${l['pt-BR']} ${name} não existe mais`), both(`${l.en} ${name} is no longer watched.`, `${l['pt-BR']} ${name} não é mais observado.`));
}

// ---- Mirroring (mirroring.ts) ----

export function mirroringStopped(name: string, status: string, errorCode: string | null, errorMessage: string | null): Said {
  const detail = errorCode ? `${errorCode}${errorMessage ? `: ${errorMessage}` : ''}` : '';
  return said(
    both(`Mirroring of ${name} ${errorCode ? 'failed' : `is ${status}`}`, `Espelhamento de ${name} ${errorCode ? 'falhou' : `está ${status}`}`),
    both(
      `Mirrored database ${name}: mirroring ${errorCode ? `failed (${detail})` : `is ${status}`}; its tables are not replicating.`,
      `Banco espelhado ${name}: o espelhamento ${errorCode ? `falhou (${detail})` : `está ${status}`}; suas tabelas não estão sendo replicadas.`,
    ),
  );
}

export function mirroringRunning(name: string, status: string): Said {
  return said(both(`Mirroring of ${name} is ${status}`, `Espelhamento de ${name} está ${status}`), both(`Mirrored database ${name} is ${status} again.`, `O banco espelhado ${name} está ${status} de novo.`));
}

export function mirroredDatabaseGone(name: string): Said {
  return said(both(`Mirrored database ${name} is gone`, `Banco espelhado ${name} não existe mais`), both(`Mirrored database ${name} is no longer watched.`, `O banco espelhado ${name} não é mais observado.`));
}

export function mirroredTableFailed(label: string, code: string, errorMessage: string | null): Said {
  const detail = `${code}${errorMessage ? ` (${errorMessage})` : ''}`;
  return said(both(`Mirrored table ${label} failed`, `Tabela espelhada ${label} falhou`), both(`Mirrored table ${label} failed to replicate: ${detail}.`, `A tabela espelhada ${label} não conseguiu replicar: ${detail}.`));
}

export function mirroredTableRunning(label: string, status: string): Said {
  return said(both(`Mirrored table ${label} is ${status}`, `Tabela espelhada ${label} está ${status}`), both(`Mirrored table ${label} is ${status} again.`, `A tabela espelhada ${label} está ${status} de novo.`));
}

export function mirroredTableLags(label: string, seconds: number | null, limit: number): Said {
  return said(both(`Mirrored table ${label} lags ${seconds} s behind`, `Tabela espelhada ${label} com ${seconds} s de atraso`), both(`Replication lag of ${label} is ${seconds} s, over the tenant's threshold of ${limit} s.`, `O atraso de replicação de ${label} é de ${seconds} s, acima do limite do tenant de ${limit} s.`));
}

export function mirroredTableLagOver(label: string, seconds: number | null, limit: number): Said {
  return said(both(`Mirrored table ${label} lag is ${seconds} s`, `Atraso da tabela espelhada ${label} em ${seconds} s`), both(`Replication lag of ${label} is ${seconds} s, no longer over ${limit} s.`, `O atraso de replicação de ${label} é de ${seconds} s, não mais acima de ${limit} s.`));
}

export function mirroredTableGone(label: string): Said {
  return said(both(`Mirrored table ${label} is gone`, `Tabela espelhada ${label} não existe mais`), both(`Mirrored table ${label} is no longer watched.`, `A tabela espelhada ${label} não é mais observada.`));
}

// ---- Data sources (datasources.ts) ----

type ConnectorKind = 'ConnectorUnreachable' | 'ConnectorAuthFailed';
const CONNECTOR: Record<ConnectorKind, { down: Texts; up: Texts }> = {
  ConnectorUnreachable: { down: both('cannot be reached', 'não pode ser alcançada'), up: both('can be reached again', 'pode ser alcançada de novo') },
  ConnectorAuthFailed: { down: both('refuses its stored credentials', 'recusa as credenciais guardadas'), up: both('accepts its credentials again', 'aceita as credenciais de novo') },
};

/** `code` and `detail` are the platform's, verbatim. */
export function dataSourceDown(kind: ConnectorKind, name: string, type: string, gatewayName: string | null, code: string, detail: string): Said {
  const t = CONNECTOR[kind].down;
  const tail = `${code}${detail ? ` — ${detail}` : ''}`;
  return said(
    both(`Data source ${name} ${t.en}`, `A fonte de dados ${name} ${t['pt-BR']}`),
    both(`Data source ${name} (${type})${gatewayName ? ` through gateway ${gatewayName}` : ''} ${t.en}: ${tail}`, `A fonte de dados ${name} (${type})${gatewayName ? ` pelo gateway ${gatewayName}` : ''} ${t['pt-BR']}: ${tail}`),
  );
}

export function dataSourceUp(kind: ConnectorKind, name: string): Said {
  const t = CONNECTOR[kind].up;
  return said(both(`Data source ${name} ${t.en}`, `A fonte de dados ${name} ${t['pt-BR']}`), both(`Data source ${name} ${t.en}.`, `A fonte de dados ${name} ${t['pt-BR']}.`));
}

export function dataSourceGone(name: string): Said {
  return said(both(`Data source ${name} is gone`, `A fonte de dados ${name} não existe mais`), both(`Data source ${name} is no longer listed by the platform.`, `A fonte de dados ${name} não é mais listada pela plataforma.`));
}

// ---- Semantic-model refreshes (refreshes.ts; the failure's explanation is refresh-errors.ts') ----

export function refreshFailedTitle(name: string, code: string | null): Texts {
  const c = code ? ` (${code})` : '';
  return both(`Refresh of semantic model ${name} failed${c}`, `A atualização do modelo semântico ${name} falhou${c}`);
}

export function refreshSucceeded(name: string): Said {
  return said(both(`Semantic model ${name} refreshed`, `Modelo semântico ${name} atualizado`), both(`The refresh of semantic model ${name} completed successfully.`, `A atualização do modelo semântico ${name} foi concluída com sucesso.`));
}

export function semanticModelGone(name: string): Said {
  return said(both(`Semantic model ${name} is gone`, `Modelo semântico ${name} não existe mais`), both(`Semantic model ${name} is no longer watched.`, `O modelo semântico ${name} não é mais observado.`));
}
