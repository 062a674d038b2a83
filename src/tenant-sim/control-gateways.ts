/** The simulator's controls — gateways, their members and data sources, and cloud connections. Composed with the other areas in control.ts. */
import type { SimControl } from './control-api.js';
import { type ControlKit, SimControlError } from './control-kit.js';

export type GatewaysControls = Pick<SimControl, 'gatewayOffline' | 'memberOffline' | 'gatewayUpgradeRequired' | 'longRunningStatusChecks' | 'datasourceReachable' | 'datasourceCredentials' | 'longRunningConnectionTests' | 'removeDatasource'>;

export function gatewaysControls(kit: ControlKit): GatewaysControls {
  const { s, gateway, dataSource, bool } = kit;
  return {
    gatewayOffline({ gatewayId, offline }) {
      gateway(gatewayId).online = !bool(offline, true);
    },
    memberOffline({ gatewayId, memberId, offline }) {
      const m = gateway(gatewayId).members.find((x) => x.id.toLowerCase() === String(memberId).toLowerCase());
      if (!m) throw new SimControlError(`no member ${memberId} in gateway ${gatewayId}`);
      m.online = !bool(offline, true);
    },
    gatewayUpgradeRequired({ gatewayId, on }) {
      gateway(gatewayId).upgradeRequired = bool(on, true);
    },
    longRunningStatusChecks({ on, fail }) {
      s().settings.longRunningStatusChecks = on === true;
      s().settings.longRunningFails = on === true && fail === true;
    },
    datasourceReachable({ datasourceId, reachable }) {
      dataSource(datasourceId).reachable = reachable === true;
    },
    datasourceCredentials({ datasourceId, expired }) {
      dataSource(datasourceId).credentialsExpired = bool(expired, true);
    },
    longRunningConnectionTests({ on }) {
      s().settings.longRunningConnectionTests = on === true;
    },
    removeDatasource({ datasourceId }) {
      const id = String(datasourceId).toLowerCase();
      const before = s().connections.length + s().gateways.reduce((n, g) => n + g.datasources.length, 0);
      for (const g of s().gateways) g.datasources = g.datasources.filter((d) => d.id.toLowerCase() !== id);
      s().connections = s().connections.filter((c) => c.id.toLowerCase() !== id);
      for (const w of s().workspaces) for (const i of w.items) if (i.gatewayDatasourceId?.toLowerCase() === id) delete i.gatewayDatasourceId;
      if (s().connections.length + s().gateways.reduce((n, g) => n + g.datasources.length, 0) === before) throw new SimControlError(`no data source ${datasourceId}`);
    },
  };
}
