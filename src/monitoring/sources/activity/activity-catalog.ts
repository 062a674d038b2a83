/**
 * The change activities the `activity` collector keeps: the operation names of the activity log
 * that change what refreshes and reports depend on (vendor-specs/powerbi-activity/README.md §3:
 * schedules, credentials and parameters, gateway binding and gateway changes, ownership,
 * capacity assignment and state, tenant settings, deletions, deployments), each with the object
 * it changes, in order of preference: the first kind whose id the record carries is the object.
 * Every other activity (views, exports — Vigia's own `ExportActivityEvents` among them) is not
 * kept.
 */

/** Where a change's object id is read from. */
export type Target = 'dataset' | 'dataflow' | 'report' | 'artifact' | 'gateway' | 'workspace' | 'capacity' | 'tenant';

const SCHEDULES = ['SetScheduledRefresh', 'SetModelRefreshScheduleOfDataset', 'SetModelRefreshScheduleOfDateset', 'SetDQRefreshScheduleOfDataset', 'SetDQRefreshScheduleOfDateset'];
const MODEL_EDITS = [
  'UpdateDatasetParameters',
  'UpdateDatasetParametersForSolution',
  'UpdateDatasources',
  'SetAllConnections',
  'BindToGateway',
  'TakeOverDataset',
  'DeleteDataset',
  'Import',
  'ImportArtifactStart',
  'ImportArtifactEnd',
  'EditDataset',
  'ApplyChangeToPowerBIModel',
  'UpdateDataset',
  'EditDatasetProperties',
];
const DATAFLOWS = ['SetScheduledRefreshOnDataflow', 'TookOverDataflow', 'DeleteDataflow'];
const GATEWAYS = [
  'UpdateDatasourceCredentials',
  'UpdateGatewayClusterDatasourceCredentials',
  'UpdateDatasource',
  'TakeOverDatasource',
  'BindMonikersToDatasources',
  'DeleteGateway',
  'DeleteGatewayCluster',
  'DeleteGatewayClusterMember',
  'UpdateGateway',
  'UpdateGatewayClusterMember',
  'PatchGatewayCluster',
  'RemoveDatasourceFromGateway',
  'DeleteGatewayClusterDatasource',
  'UpdateGatewayClusterDatasource',
  'ChangeGatewayDatasourceUsers',
  'RemoveGatewayClusterDatasourceUser',
  'ChangeGatewayAdministrators',
];
const TENANT = ['UpdateGatewayTenantPolicy', 'RotateTenantKeyEncryptionKey', 'UpdatedAdminFeatureSwitch', 'UpdateDatasourceShareTenantPolicy', 'UpdateTenantDlpPolicies', 'UpdateDomainTenantSettingDelegation', 'UpdateAlmPipeline', 'SetConfigurationAlmPipeline'];
const WORKSPACES = [
  'UpdateWorkspaceAccess',
  'DeleteGroupMembers',
  'UpdateWorkspaceRoleViaAdminApi',
  'DeleteWorkspaceRoleViaAdminApi',
  'ModifyWorkspaceCapacity',
  'MigrateWorkspaceIntoCapacity',
  'RemoveWorkspacesFromCapacity',
  'UpdateWorkspaceTenantSettingDelegation',
  'DeleteWorkspaceTenantSettingDelegation',
  'DeleteWorkspaceViaAdminApi',
  'DeleteFolder',
  'DeleteGroupWorkspace',
  'DeleteWorkspacesPermanentlyAsAdmin',
  'DeployAlmPipeline',
  'UpdateFromGit',
  'SwitchBranchInGit',
  'UndoGit',
  'CommitToGit',
];
const CAPACITIES = [
  'ChangeCapacityState',
  'UpdateCapacityAdmins',
  'UpdateCapacityUsersAssignment',
  'UpdateCapacityCustomSettings',
  'UpdateCapacityResourceGovernanceSettings',
  'UpdateCapacityDisplayName',
  'UpdateDefaultPersonalWorkspaceCapacity',
  'UpdateCapacityTenantSettingDelegation',
  'DeleteCapacityTenantSettingDelegation',
];
const REPORTS = ['DeleteReport', 'RebindReport'];
const ARTIFACTS = [
  'UpsertDatamartParameters',
  'UpsertWarehouseParameters',
  'DeleteArtifact',
  'DeleteWarehouse',
  'DeleteDatamart',
  'DeleteLakehouseTable',
  'DropLakehouseTable',
  'RenameLakehouseTable',
  'UpdateArtifact',
  'CreateArtifact',
  'UpdateWarehouseSettings',
  'UpdateSqlAnalyticsEndpointLakehouseSettings',
  'UpdateEnvironmentSparkSettings',
  'SetNotebookDefaultLakehouse',
  'UpdateNotebookLibrary',
];

/** When none of an activity's own kinds has an id in the record: any id it carries, the tenant last. */
export const FALLBACK: readonly Target[] = ['dataset', 'artifact', 'report', 'dataflow', 'gateway', 'workspace', 'capacity', 'tenant'];

const GROUPS: [readonly string[], readonly Target[]][] = [
  [SCHEDULES, ['dataset']],
  [MODEL_EDITS, ['dataset', 'artifact']],
  [DATAFLOWS, ['dataflow', 'artifact']],
  [GATEWAYS, ['gateway', 'dataset']],
  [TENANT, ['tenant']],
  [WORKSPACES, ['workspace']],
  [CAPACITIES, ['capacity']],
  [REPORTS, ['report']],
  [ARTIFACTS, ['artifact']],
];

/** Lower-case operation name → its name as documented and the kinds of object it changes. */
const CATALOG = new Map<string, { name: string; targets: readonly Target[] }>(GROUPS.flatMap(([names, targets]) => names.map((name) => [name.toLowerCase(), { name, targets }] as const)));

/** The change activity of this operation name (any case), or null when it is not a change Vigia keeps. */
export function changeActivity(name: string): { name: string; targets: readonly Target[] } | null {
  return CATALOG.get(name.toLowerCase()) ?? null;
}

/** Every change activity kept (documentation, tests, the simulator's examples). */
export const CHANGE_ACTIVITIES: readonly string[] = GROUPS.flatMap(([names]) => names);
