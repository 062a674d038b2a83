import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { useConsole } from '../app-context.js';
import type { Column } from '../lists.js';
import { ChangesTimeline, OrgChanges, Tabs, type TimelineObject } from './changes.js';

/**
 * The "Mudanças" tab of the organization-wide list pages (gateways, semantic models, capacities)
 * and the button on each row that opens one object's changes there. The tab lists every tenant
 * connection's changes to that kind of object; a row's button turns it into that object's
 * changes and those of what it depends on (the join of changes to incidents' path: a model's
 * data sources, gateways, workspace and capacity, the tenant's settings), until "Voltar a todas
 * as mudanças" or the list tab.
 */

/** Where one object's changes are: the tenant connections that watch it, with its platform id in each. */
export interface ObjectChanges {
  kind: TimelineObject['kind'];
  name: string;
  in: Array<{ tenantId: string; tenantName: string; id: string }>;
}

/** Opens one object's changes in the page's "Mudanças" tab (null outside such a page). */
const OpenChanges = createContext<((o: ObjectChanges) => void) | null>(null);

/** An organization-wide list page's content under two tabs: the list, and the changes (all, or one object's). */
export function WithChangesTab(props: { id: string; orgId: string; objectKind: TimelineObject['kind']; children: ComponentChildren }) {
  const { t } = useConsole();
  const [chosen, setChosen] = useState('list');
  const [object, setObject] = useState<ObjectChanges | null>(null);
  const open = useCallback((o: ObjectChanges) => {
    setObject(o);
    setChosen('changes');
  }, []);
  const choose = (key: string) => {
    setChosen(key);
    if (key === 'list') setObject(null);
  };
  return (
    <OpenChanges.Provider value={open}>
      <Tabs
        id={props.id}
        chosen={chosen}
        onChoose={choose}
        tabs={[
          { key: 'list', label: t('chListTab'), panel: () => props.children },
          {
            key: 'changes',
            label: t('chTab'),
            panel: () => (object ? <ObjectChangesPanel orgId={props.orgId} object={object} onBack={() => setObject(null)} /> : <OrgChanges orgId={props.orgId} objectKind={props.objectKind} />),
          },
        ]}
      />
    </OpenChanges.Provider>
  );
}

/** One object's changes and those of what it depends on, in each tenant connection that watches it; the heading takes the focus the row's button had. */
function ObjectChangesPanel(props: { orgId: string; object: ObjectChanges; onBack: () => void }) {
  const { t } = useConsole();
  const o = props.object;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [o]);
  return (
    <div data-changes-object={o.name}>
      <h2 tabIndex={-1} ref={heading}>
        {t('chObjectTitle', { name: o.name })}
      </h2>
      <p>
        <button type="button" onClick={props.onBack}>
          {t('chBackToAll')}
        </button>
      </p>
      {o.in.map((w) => (
        <ChangesTimeline key={`${w.tenantId}/${w.id}`} orgId={props.orgId} tenantId={w.tenantId} tenantName={w.tenantName} object={{ kind: o.kind, id: w.id, name: o.name }} />
      ))}
    </div>
  );
}

/** A row's button to its object's changes ("—" when no tenant connection watches it, so none are read). */
function ObjectChangesButton(props: { object: ObjectChanges }) {
  const { t } = useConsole();
  const open = useContext(OpenChanges);
  if (!open || props.object.in.length === 0) return <>—</>;
  return (
    <button type="button" class="link" aria-label={t('chOpenOf', { name: props.object.name })} onClick={() => open(props.object)}>
      {t('chTab')}
    </button>
  );
}

/** The list column of each row's button to its object's changes. */
export function objectChangesColumn<T>(label: string, of: (row: T) => ObjectChanges): Column<T> {
  return { label, class: 'text', cell: (row) => <ObjectChangesButton object={of(row)} /> };
}
