/**
 * One record of the activity log → a change to keep, a record to ignore (not a change), or a
 * record to reject (malformed: no id, no activity, a time that is not one). The log's records are
 * loosely typed (vendor-specs/powerbi-activity/README.md §2): times come with and without a zone
 * (always UTC), ids may be missing or not ids at all — such an id is left out, and a change that
 * names no object it can be tied to is the tenant's.
 */
import type { ChangeLinks, ChangeObject, TenantChange } from '../../changes/store.js';
import { textOf } from '../../platform/values.js';
import { changeActivity, FALLBACK, type Target } from './activity-catalog.js';

export type RecordVerdict = { keep: TenantChange } | { ignore: string } | { reject: string };

/** A platform id: a GUID or a similar token, nothing else is kept as an id. */
const ID = /^[A-Za-z0-9][\w.:-]{0,199}$/;
/** ISO-8601 date and time, with or without fraction and zone (no zone: UTC). */
const TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,7})?(Z|[+-]\d{2}:?\d{2})?$/;
/** The actor's fields: personal, kept only in the actor column (UserId) or not at all. */
const PERSONAL = new Set(['userid', 'userkey', 'clientip']);
/** A record's JSON kept as logged up to this size; a larger one keeps only its scalar fields. */
const RAW_MAX = 16_384;

function idOf(r: Record<string, unknown>, ...fields: string[]): string | null {
  for (const f of fields) {
    const v = r[f];
    if (typeof v === 'string' && ID.test(v)) return v.toLowerCase();
  }
  return null;
}

function nameOf(r: Record<string, unknown>, ...fields: string[]): string | null {
  for (const f of fields) {
    const v = textOf(r[f]).trim();
    if (v) return v.slice(0, 500);
  }
  return null;
}

/** `CreationTime` as UTC, or null when it is not a time. */
export function logTime(v: unknown): Date | null {
  if (typeof v !== 'string') return null;
  const m = TIME.exec(v.trim());
  if (!m) return null;
  const fraction = m[3] ? m[3].slice(0, 4) : '';
  const zone = !m[4] || m[4] === 'Z' ? 'Z' : m[4].length === 5 ? `${m[4].slice(0, 3)}:${m[4].slice(3)}` : m[4];
  const t = new Date(`${m[1]}T${m[2]}${fraction}${zone}`);
  return Number.isNaN(t.getTime()) ? null : t;
}

function linksOf(r: Record<string, unknown>): ChangeLinks {
  const artifactIsModel = /^(dataset|semanticmodel)$/i.test(textOf(r.ArtifactKind));
  return {
    datasetId: idOf(r, 'DatasetId') ?? (artifactIsModel ? idOf(r, 'ArtifactId') : null),
    gatewayId: idOf(r, 'GatewayId'),
    datasourceId: idOf(r, 'DatasourceId'),
    workspaceId: idOf(r, 'WorkspaceId', 'FolderObjectId'),
    capacityId: idOf(r, 'CapacityId'),
  };
}

function objectFor(target: Target, r: Record<string, unknown>, links: ChangeLinks): ChangeObject | null {
  switch (target) {
    case 'dataset':
      return links.datasetId ? { kind: 'item', id: links.datasetId, type: 'SemanticModel', name: nameOf(r, 'DatasetName', 'ArtifactName', 'ItemName') } : null;
    case 'dataflow': {
      const id = idOf(r, 'DataflowId');
      return id ? { kind: 'item', id, type: 'Dataflow', name: nameOf(r, 'DataflowName', 'ItemName') } : null;
    }
    case 'report': {
      const id = idOf(r, 'ReportId');
      return id ? { kind: 'item', id, type: 'Report', name: nameOf(r, 'ReportName', 'ItemName') } : null;
    }
    case 'artifact': {
      const id = idOf(r, 'ArtifactId');
      return id ? { kind: 'item', id, type: nameOf(r, 'ArtifactKind') ?? 'Item', name: nameOf(r, 'ArtifactName', 'ItemName') } : null;
    }
    case 'gateway':
      return links.gatewayId ? { kind: 'gateway', id: links.gatewayId, type: null, name: nameOf(r, 'GatewayName') } : null;
    case 'workspace':
      return links.workspaceId ? { kind: 'workspace', id: links.workspaceId, type: null, name: nameOf(r, 'WorkSpaceName', 'WorkspaceName', 'FolderDisplayName') } : null;
    case 'capacity':
      return links.capacityId ? { kind: 'capacity', id: links.capacityId, type: null, name: nameOf(r, 'CapacityName') } : null;
    case 'tenant':
      return { kind: 'tenant', id: null, type: null, name: null };
  }
}

/** Storable text all the way down (no NUL, no lone surrogate), the personal fields left out. */
function storable(v: unknown, top = false): unknown {
  if (typeof v === 'string') return textOf(v);
  if (Array.isArray(v)) return v.map((x) => storable(x));
  if (v && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (top && PERSONAL.has(k.toLowerCase()) ? [] : [[textOf(k), storable(x)]])));
  }
  return v;
}

function rawOf(r: Record<string, unknown>): Record<string, unknown> {
  const raw = storable(r, true) as Record<string, unknown>;
  if (JSON.stringify(raw).length <= RAW_MAX) return raw;
  return Object.fromEntries(Object.entries(raw).filter(([, v]) => v === null || typeof v !== 'object').map(([k, v]) => [k, typeof v === 'string' ? v.slice(0, 500) : v]));
}

/** What to do with one record of the log. */
export function readRecord(record: unknown): RecordVerdict {
  if (!record || typeof record !== 'object' || Array.isArray(record)) return { reject: 'a record that is not an object' };
  const r = record as Record<string, unknown>;
  const recordId = idOf(r, 'Id');
  if (!recordId) return { reject: 'a record without an Id' };
  const name = textOf(r.Activity) || textOf(r.Operation);
  if (!name) return { reject: `record ${recordId} without an Activity` };
  const activity = changeActivity(name);
  if (!activity) return { ignore: name };
  const occurredAt = logTime(r.CreationTime);
  if (!occurredAt) return { reject: `record ${recordId} with a CreationTime that is not a time` };
  const links = linksOf(r);
  const object = [...activity.targets, ...FALLBACK].map((t) => objectFor(t, r, links)).find((o) => o !== null)!;
  const actor = textOf(r.UserId).trim();
  return {
    keep: {
      recordId,
      activity: activity.name,
      occurredAt,
      object,
      links,
      isSuccess: typeof r.IsSuccess === 'boolean' ? r.IsSuccess : null,
      actorUpn: actor ? actor.slice(0, 320) : null,
      actorType: Number.isInteger(r.UserType) ? (r.UserType as number) : null,
      raw: rawOf(r),
    },
  };
}
