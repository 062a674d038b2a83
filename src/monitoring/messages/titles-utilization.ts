/** Titles of capacity utilization (utilization-verdicts.ts): throttling, high usage, the heaviest items (the catalog: titles.ts). */
import type { Texts } from '../../orgs/language.js';
import { both, each, type Said, said } from './titles-kit.js';

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
