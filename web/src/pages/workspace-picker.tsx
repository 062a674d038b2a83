import type { components } from '../admin-api.gen.js';
import { orgPath, useConsole } from '../app-context.js';
import { SelectField } from '../forms.js';
import { useGet } from '../lists.js';

type Inventory = components['schemas']['WorkspaceInventory'];

/**
 * The organization's workspaces as a list to choose from (name and id), for a field that needs a
 * workspace id: choosing one fills the field; "Digitar o ID" leaves it to typing. Without an
 * inventory yet (no collector has listed the workspaces), nothing is shown but the field.
 */
export function WorkspacePicker(props: { id: string; value: string; onPick: (workspaceId: string) => void }) {
  const { t, orgId } = useConsole();
  const list = useGet<Inventory>(orgPath(orgId ?? '', '/workspaces'));
  const items = list.data?.items ?? [];
  if (items.length === 0) return null;
  const known = items.some((w) => w.remoteId.toLowerCase() === props.value.trim().toLowerCase());
  return (
    <SelectField
      id={props.id}
      label={t('ulPickWorkspace')}
      value={known ? items.find((w) => w.remoteId.toLowerCase() === props.value.trim().toLowerCase())!.remoteId : ''}
      onValue={props.onPick}
      options={[['', t('ulPickNone')] as const, ...items.map((w) => [w.remoteId, `${w.name} (${w.remoteId})`] as const)]}
    />
  );
}
