/** Titles of the gateway and capacity collectors (gateway.ts, capacity.ts; the catalog: titles.ts). */
import type { Texts } from '../../orgs/language.js';
import { both, type Said, said } from './titles-kit.js';

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
