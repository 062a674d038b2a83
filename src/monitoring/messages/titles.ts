/**
 * The titles and messages Vigia's own collectors write, each in Portuguese and English. A
 * collector calls the entry of its notification kind (failure or recovery) with the facts; the
 * signal carries both texts, and the commit (output.ts applySignalsIn) stores the one its
 * organization reads (`orgs.language`). Names, figures and the platform's own error codes and
 * messages go in verbatim, in both: people look codes up as the platform wrote them.
 */
import type { Texts } from '../../orgs/language.js';

/** What a signal says: its title and its message, each in every language. */
export interface Said {
  title: Texts;
  message: Texts;
}

const both = (en: string, pt: string): Texts => ({ en, 'pt-BR': pt });
const said = (title: Texts, message: Texts): Said => ({ title, message });

/** "Gateway X", but a gateway already named "Gateway 001" is not "Gateway Gateway 001". */
export const gatewayNamed = (name: string): string => (/^gateway\b/i.test(name) ? name : `Gateway ${name}`);
const gatewayEn = gatewayNamed;
const gatewayPt = (name: string) => (/^gateway\b/i.test(name) ? `O ${name}` : `O gateway ${name}`);

/** The platform's error details as it wrote them ("Code: message"), or what the check answered. */
function platformErrors(errors: { errorCode?: string; message?: string }[] | undefined | null, none: Texts): Texts {
  const list = (errors ?? []).map((d) => `${d.errorCode ?? 'Error'}: ${d.message ?? ''}`.trim());
  return list.length ? both(list.join('; '), list.join('; ')) : none;
}

// ---- Gateway (gateway.ts) ----

export function gatewayOffline(name: string, errors: { errorCode?: string; message?: string }[] | undefined | null): Said {
  const why = platformErrors(errors, both('the status check answered Offline', 'a verificação de status respondeu Offline'));
  return said(both(`${gatewayEn(name)} is offline`, `${gatewayPt(name)} está offline`), both(`${gatewayEn(name)} is offline: ${why.en}`, `${gatewayPt(name)} está offline: ${why['pt-BR']}`));
}

export function gatewayOnline(name: string): Said {
  return said(both(`${gatewayEn(name)} is online`, `${gatewayPt(name)} está online`), both(`${gatewayEn(name)} answers its status check again.`, `${gatewayPt(name)} voltou a responder à verificação de status.`));
}

export function gatewayUpgradeRequired(name: string, version: string | undefined): Said {
  const v = version ?? 'unknown';
  return said(
    both(`${gatewayEn(name)} needs an upgrade`, `${gatewayPt(name)} precisa ser atualizado`),
    both(`${gatewayEn(name)} (version ${v}) must be upgraded.`, `${gatewayPt(name)} (versão ${version ?? 'desconhecida'}) precisa ser atualizado.`),
  );
}

export function gatewayUpToDate(name: string): Said {
  return said(both(`${gatewayEn(name)} is up to date`, `${gatewayPt(name)} está atualizado`), both(`${gatewayEn(name)} no longer needs an upgrade.`, `${gatewayPt(name)} não precisa mais ser atualizado.`));
}

export function gatewayMemberOffline(name: string, errors: { errorCode?: string; message?: string }[] | undefined | null): Said {
  const why = platformErrors(errors, both('the status check answered Offline', 'a verificação de status respondeu Offline'));
  return said(both(`Gateway member ${name} is offline`, `O membro de gateway ${name} está offline`), both(`Gateway member ${name} is offline: ${why.en}`, `O membro de gateway ${name} está offline: ${why['pt-BR']}`));
}

export function gatewayMemberOnline(name: string): Said {
  return said(both(`Gateway member ${name} is online`, `O membro de gateway ${name} está online`), both(`Gateway member ${name} answers its status check again.`, `O membro de gateway ${name} voltou a responder à verificação de status.`));
}

export function gatewayGone(name: string, member: boolean): Said {
  const en = member ? `Gateway member ${name}` : gatewayEn(name);
  const pt = member ? `O membro de gateway ${name}` : gatewayPt(name);
  return said(both(`${en} is gone`, `${pt} não existe mais`), both(`${name} is no longer watched.`, `${name} não é mais observado.`));
}

// ---- Capacity (capacity.ts) ----

export function capacityDown(name: string, state: string, sku: string, region: string): Said {
  return said(both(`Capacity ${name} is ${state}`, `Capacidade ${name} está ${state}`), both(`Capacity ${name} (${sku}, ${region}) left the active state: ${state}.`, `A capacidade ${name} (${sku}, ${region}) saiu do estado ativo: ${state}.`));
}

export function capacityUp(name: string, state: string): Said {
  return said(both(`Capacity ${name} is ${state}`, `Capacidade ${name} está ${state}`), both(`Capacity ${name} is ${state} again.`, `A capacidade ${name} está ${state} de novo.`));
}

export function capacityGone(name: string): Said {
  return said(both(`Capacity ${name} is gone`, `Capacidade ${name} não existe mais`), both(`Capacity ${name} is no longer watched.`, `A capacidade ${name} não é mais observada.`));
}

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

// ---- Capacity utilization (utilization-verdicts.ts) ----

export function capacityPaused(name: string, reason: string, throttled: boolean): Said {
  return said(
    both(`Capacity ${name} paused`, `Capacidade ${name} pausada`),
    throttled
      ? both(`Capacity ${name} was paused (${reason}): the carry-forward was charged and the throttling ended.`, `Capacidade ${name} foi pausada (${reason}): o carry-forward foi cobrado e a limitação terminou.`)
      : both(`Capacity ${name} was paused (${reason}).`, `Capacidade ${name} foi pausada (${reason}).`),
  );
}

export function capacityNoLongerWatched(name: string): Said {
  const t = both(`Capacity ${name} is no longer watched.`, `Capacidade ${name} não é mais observada.`);
  return said(t, t);
}

/** The throttling stages of a capacity (utilization-verdicts.ts stageOf). */
export type ThrottleStage = 'interactiveDelay' | 'interactiveRejection' | 'backgroundRejection';

const STAGE: Record<ThrottleStage, { name: Texts; figure: Texts; effect: Texts }> = {
  interactiveDelay: {
    name: both('interactive delay', 'atraso interativo'),
    figure: both('usage already committed for the next 10 min', 'uso já comprometido dos próximos 10 min'),
    effect: both('new interactive queries wait 20 s', 'novas consultas interativas esperam 20 s'),
  },
  interactiveRejection: {
    name: both('interactive rejection', 'rejeição interativa'),
    figure: both('usage already committed for the next 1 h', 'uso já comprometido da próxima 1 h'),
    effect: both('new interactive queries are rejected', 'novas consultas interativas são rejeitadas'),
  },
  backgroundRejection: {
    name: both('background rejection', 'rejeição em segundo plano'),
    figure: both('usage already committed for the next 24 h', 'uso já comprometido das próximas 24 h'),
    effect: both('everything new is rejected, refreshes, pipelines and notebooks included', 'tudo o que é novo é rejeitado, inclusive atualizações, pipelines e notebooks'),
  },
};

/** A percentage and a duration written the way each language's readers write them. */
const pct = (n: number): Texts => both(`${Math.round(n).toLocaleString('en')} %`, `${Math.round(n).toLocaleString('pt-BR')} %`);
const duration = (m: number): Texts =>
  m < 1
    ? both('less than 1 min', 'menos de 1 min')
    : m < 90
      ? both(`${Math.round(m)} min`, `${Math.round(m)} min`)
      : both(`${(m / 60).toLocaleString('en', { maximumFractionDigits: 1 })} h`, `${(m / 60).toLocaleString('pt-BR', { maximumFractionDigits: 1 })} h`);
const each = (f: (l: 'en' | 'pt-BR') => string): Texts => ({ en: f('en'), 'pt-BR': f('pt-BR') });

/** The figures of one 30-second window a throttling message speaks of. */
export interface ThrottleFigures {
  capacityName: string;
  sku: string;
  figurePct: number;
  utilizationPct: number;
  carryForwardCuMs: number;
  /** Minutes of the whole capacity the carry-forward amounts to. */
  carryMinutes: number;
  burn: { minutes: number; assumption: 'current' | 'idle' };
}

export function capacityThrottledTitle(name: string, stage: ThrottleStage): Texts {
  return each((l) => (l === 'en' ? `Capacity ${name} in ${STAGE[stage].name.en}` : `Capacidade ${name} em ${STAGE[stage].name['pt-BR']}`));
}

/** What throttles, how far, the carry-forward and when it is paid, and (when known) what used the most. */
export function capacityThrottledMessage(f: ThrottleFigures, stage: ThrottleStage, culprits: Texts | null): Texts {
  const s = STAGE[stage];
  return each((l) => {
    const cu = Math.round(f.carryForwardCuMs / 1000).toLocaleString(l);
    const burn =
      f.carryForwardCuMs <= 0
        ? l === 'en' ? 'No carry-forward accumulated.' : 'Sem carry-forward acumulado.'
        : f.burn.assumption === 'current'
          ? l === 'en'
            ? `Expected carry-forward burn-down: ~${duration(f.burn.minutes).en} at the current usage (${pct(f.utilizationPct).en}).`
            : `Queima prevista do carry-forward: ~${duration(f.burn.minutes)['pt-BR']} no uso atual (${pct(f.utilizationPct)['pt-BR']}).`
          : l === 'en'
            ? `The carry-forward only shrinks with usage below 100 % (now ${pct(f.utilizationPct).en}); with the capacity idle, ~${duration(f.burn.minutes).en}.`
            : `O carry-forward só diminui com o uso abaixo de 100 % (agora ${pct(f.utilizationPct)['pt-BR']}); com a capacidade ociosa, ~${duration(f.burn.minutes)['pt-BR']}.`;
    const head =
      l === 'en'
        ? `Capacity ${f.capacityName} (${f.sku}) in ${s.name.en}: ${s.figure.en} at ${pct(f.figurePct).en} (limit 100 %); ${s.effect.en}.`
        : `Capacidade ${f.capacityName} (${f.sku}) em ${s.name['pt-BR']}: ${s.figure['pt-BR']} em ${pct(f.figurePct)['pt-BR']} (limite 100 %); ${s.effect['pt-BR']}.`;
    const carry = l === 'en' ? `Carry-forward: ${cu} CU·s (${duration(f.carryMinutes).en} of the whole capacity).` : `Carry-forward: ${cu} CU·s (${duration(f.carryMinutes)['pt-BR']} da capacidade inteira).`;
    return [head, carry, burn, culprits?.[l] ?? ''].filter(Boolean).join(' ');
  });
}

export function capacityThrottleEnded(name: string, windows: number, delayPct: number, interactivePct: number, backgroundPct: number): Said {
  return said(
    both(`Capacity ${name} no longer throttled`, `Capacidade ${name} sem limitação`),
    each((l) =>
      l === 'en'
        ? `Capacity ${name}: ${windows} 30 s windows in a row below 100 % (10 min: ${pct(delayPct).en}, 1 h: ${pct(interactivePct).en}, 24 h: ${pct(backgroundPct).en}).`
        : `Capacidade ${name}: ${windows} janelas de 30 s seguidas abaixo de 100 % (10 min: ${pct(delayPct)['pt-BR']}, 1 h: ${pct(interactivePct)['pt-BR']}, 24 h: ${pct(backgroundPct)['pt-BR']}).`,
    ),
  );
}

export function capacityHighUtilization(name: string, sku: string, delayPct: number, warnPercent: number): Said {
  return said(
    both(`Capacity ${name} above ${warnPercent} %`, `Capacidade ${name} acima de ${warnPercent} %`),
    both(
      `Capacity ${name} (${sku}): usage already committed for the next 10 min at ${pct(delayPct).en}, above the warning of ${warnPercent} %; throttling starts at 100 %.`,
      `Capacidade ${name} (${sku}): uso já comprometido dos próximos 10 min em ${pct(delayPct)['pt-BR']}, acima do aviso de ${warnPercent} %; a limitação começa em 100 %.`,
    ),
  );
}

export function capacityHighUtilizationEnded(name: string, windows: number, delayPct: number, warnPercent: number): Said {
  return said(
    both(`Capacity ${name} below ${warnPercent} %`, `Capacidade ${name} abaixo de ${warnPercent} %`),
    both(
      `Capacity ${name}: ${windows} 30 s windows in a row below ${warnPercent} % (10 min: ${pct(delayPct).en}).`,
      `Capacidade ${name}: ${windows} janelas de 30 s seguidas abaixo de ${warnPercent} % (10 min: ${pct(delayPct)['pt-BR']}).`,
    ),
  );
}

const WORKLOADS: Record<string, Texts> = {
  AS: both('semantic models', 'modelos semânticos'), DI: both('data integration (pipelines)', 'integração de dados (pipelines)'), DMS: both('warehouse/SQL', 'warehouse/SQL'),
  SparkCore: both('Spark (notebooks, jobs)', 'Spark (notebooks, jobs)'), Dataflows: both('Dataflows Gen2', 'Dataflows Gen2'), Kusto: both('Eventhouse/KQL', 'Eventhouse/KQL'),
  ES: both('Eventstream', 'Eventstream'), lake: both('OneLake', 'OneLake'), RsRdlEngine: both('paginated reports', 'relatórios paginados'),
  CDSA: both('dataflows/VNet gateway', 'dataflows/gateway de VNet'), Reflex: both('Activator', 'Activator'), SQLDb: both('SQL database', 'SQL database'),
};

/** The items that used the most CU in the last half hour (shares in percent). */
export function heaviestItems(items: { name: string; kind: string; workspace: string; share: number }[]): Texts {
  const list = items.map((c) => `${c.name} (${c.kind}, workspace ${c.workspace}) ${c.share} %`).join('; ');
  return both(`Items with the most CU in the last half hour: ${list}.`, `Itens com mais CU na última meia hora: ${list}.`);
}

/** Fallback without per-operation events: the workloads with the most CU (codes as the platform names them when unknown). */
export function heaviestWorkloads(workloads: { code: string; share: number }[]): Texts {
  return each((l) => {
    const list = workloads.map((w) => `${WORKLOADS[w.code]?.[l] ?? w.code} ${w.share} %`).join('; ');
    return l === 'en' ? `Workloads with the most CU (no per-operation events in the table): ${list}.` : `Cargas de trabalho com mais CU (sem eventos por operação na tabela): ${list}.`;
  });
}

// ---- The monitor's own incidents (self-watch.ts, collector-behind.ts, first-pass.ts) ----

const TENANT_PROBLEM = {
  TenantAuthFailed: both('Vigia cannot sign in to the tenant', 'O Vigia não consegue entrar no tenant'),
  TenantAccessDenied: both('The tenant refuses Vigia access to its APIs', 'O tenant recusa ao Vigia o acesso às suas APIs'),
  TenantThrottled: both('The tenant keeps throttling Vigia', 'O tenant continua limitando o Vigia'),
  TenantUnreachable: both('Vigia cannot connect to the tenant', 'O Vigia não consegue se conectar ao tenant'),
} as const;

export function tenantProblemTitle(problem: keyof typeof TENANT_PROBLEM, tenant: string): Texts {
  const t = TENANT_PROBLEM[problem];
  return both(`${t.en}: ${tenant}`, `${t['pt-BR']}: ${tenant}`);
}

export function collectorBehindTitle(kind: 'failure' | 'recovery', collector: string, tenant: string): Texts {
  return kind === 'failure'
    ? both(`Vigia's ${collector} collector is falling behind: ${tenant}`, `O coletor ${collector} do Vigia está atrasado: ${tenant}`)
    : both(`Vigia's collectors caught up: ${tenant}`, `Os coletores do Vigia se atualizaram: ${tenant}`);
}

export function collectorBehindDetail(collector: string, deferred: number, polled: number, runs: number, since: string): Texts {
  return both(
    `${collector} left ${deferred} due resource(s) unread (read ${polled}) in ${runs} run(s) in a row since ${since}; they wait for later runs.`,
    `${collector} deixou ${deferred} recurso(s) devido(s) sem ler (leu ${polled}) em ${runs} execução(ões) seguidas desde ${since}; eles esperam as próximas execuções.`,
  );
}

export const collectorCaughtUp = (collector: string): Texts => both(`${collector} caught up`, `${collector} se atualizou`);

/** Why a deleted tenant's own incidents recover. */
export const TENANT_DELETED: Texts = both('the tenant connection was deleted', 'a conexão do tenant foi excluída');

/** TenantConnected: how many problems the first look found, where they are, and whether anyone was paged. */
export function tenantConnected(tenant: string, found: number, paged: boolean, silenceReason: string, list: string, api: string): Said {
  const problems = both(found === 1 ? '1 problem' : `${found} problems`, found === 1 ? '1 problema já presente' : `${found} problemas já presentes`);
  const how = paged
    ? both('They were delivered as usual (pageFindingsAtConnection is on).', 'Foram entregues normalmente (pageFindingsAtConnection ligado).')
    : both(
        `They are open and silenced with the reason "${silenceReason}": no one was paged for them, and they stay quiet until they resolve; a failure after that pages as usual.`,
        `Estão abertos e silenciados com o motivo "${silenceReason}": ninguém foi acionado por eles, e ficam quietos até se resolverem; uma falha depois disso aciona normalmente.`,
      );
  return said(
    both(`Tenant connected with ${problems.en} already present: ${tenant}`, `Tenant conectado com ${problems['pt-BR']}: ${tenant}`),
    both(
      `Vigia's first look at ${tenant} found ${problems.en} already present. ${how.en}\nSee them: ${list} (admin API: ${api}).`,
      `O primeiro olhar do Vigia sobre ${tenant} encontrou ${problems['pt-BR']}. ${how['pt-BR']}\nVeja-os: ${list} (API de administração: ${api}).`,
    ),
  );
}
