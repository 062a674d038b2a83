/**
 * The simulated Eventhouse's management endpoint (Kusto REST API v1: `POST /v1/rest/mgmt`),
 * for the tables Vigia creates in a KQL database it created (src/tenant-sim/fabric-items.ts).
 * It recognizes the commands Vigia sends — `.create-merge table`, `.alter-merge table … policy
 * retention` — and answers in the v1 shape (`Tables`); anything else is a 400 in Kusto's
 * OneApiErrors shape (and a violation in strict mode).
 */
import { createdDatabase, itemStore } from './fabric-items.js';
import { kustoError } from './kusto-error.js';
import type { Reply } from './reply.js';
import type { SimState } from './types.js';

const NAME = String.raw`(?:\['([^']+)'\]|\["([^"]+)"\]|([A-Za-z_][\w]*))`;
const CREATE = new RegExp(String.raw`^\.create-merge\s+table\s+${NAME}\s*\(([^)]*)\)\s*$`, 'i');
const RETENTION = new RegExp(String.raw`^\.alter-merge\s+table\s+${NAME}\s+policy\s+retention\s+softdelete\s*=\s*(\d+)d(?:\s+recoverability\s*=\s*(?:enabled|disabled))?\s*$`, 'i');
const KQL_TYPES = new Set(['bool', 'datetime', 'dynamic', 'guid', 'int', 'long', 'real', 'string', 'timespan', 'decimal']);

function v1(columns: Array<[string, string]>, rows: unknown[][]): Reply {
  return {
    status: 200,
    body: { Tables: [{ TableName: 'Table_0', Columns: columns.map(([ColumnName, ColumnType]) => ({ ColumnName, DataType: ColumnType === 'string' ? 'String' : 'Object', ColumnType })), Rows: rows }] },
  };
}

export function kustoMgmt(state: SimState, json: unknown, bad: (m: string) => Reply): Reply {
  const b = (json ?? {}) as Record<string, unknown>;
  if (typeof b.db !== 'string' || b.db === '' || typeof b.csl !== 'string' || b.csl === '') return bad('"db" and "csl" are required');
  const db = createdDatabase(state, b.db);
  if (!db) return kustoError(400, 'General_BadRequest', `Request is invalid and cannot be executed. Entity ID '${b.db}' of kind 'Database' was not found.`);
  const tables = itemStore(state).tables.get(db.displayName.toLowerCase())!;
  const csl = b.csl.trim();
  const create = CREATE.exec(csl);
  if (create) {
    const name = (create[1] ?? create[2] ?? create[3])!;
    const columns: Array<[string, string]> = [];
    for (const c of create[4]!.split(',')) {
      const m = /^\s*(\['[^']+'\]|[A-Za-z_]\w*)\s*:\s*(\w+)\s*$/.exec(c);
      if (!m || !KQL_TYPES.has(m[2]!.toLowerCase())) return kustoError(400, 'General_BadRequest', `Syntax error: column "${c.trim()}" is not name:type.`, true, 'SYN0002');
      columns.push([m[1]!.replace(/^\['|'\]$/g, ''), m[2]!.toLowerCase()]);
    }
    const existing = tables.get(name.toLowerCase());
    // create-merge: new columns are added, existing ones stay.
    const merged = existing ? [...existing.columns, ...columns.filter(([n]) => !existing.columns.some(([e]) => e === n))] : columns;
    tables.set(name.toLowerCase(), { name, columns: merged, retentionDays: existing?.retentionDays ?? null });
    return v1([['TableName', 'string'], ['Schema', 'string'], ['DatabaseName', 'string'], ['Folder', 'string'], ['DocString', 'string']], [[name, merged.map(([n, t]) => `${n}:${t}`).join(','), db.displayName, '', '']]);
  }
  const retention = RETENTION.exec(csl);
  if (retention) {
    const name = (retention[1] ?? retention[2] ?? retention[3])!;
    const table = tables.get(name.toLowerCase());
    if (!table) return kustoError(400, 'General_BadRequest', `Table '${name}' was not found in database '${db.displayName}'.`, true, 'SEM0100');
    table.retentionDays = Number(retention[4]);
    return v1([['PolicyName', 'string'], ['EntityName', 'string'], ['Policy', 'string']], [['RetentionPolicy', `[${db.displayName}].[${table.name}]`, JSON.stringify({ SoftDeletePeriod: `${table.retentionDays}.00:00:00`, Recoverability: 'Enabled' })]]);
  }
  return bad(`the simulated Eventhouse runs only .create-merge table and .alter-merge table … policy retention, not: ${csl.slice(0, 80)}`);
}
