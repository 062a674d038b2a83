/**
 * Queries to an Eventhouse (Kusto REST API v2, `POST {queryUri}/v2/rest/query`) through the
 * platform client — so the token (Kusto audience), the hourly budget, 429 back-off and the
 * transport's limits are the same as every other call. A 200 only means the query started: the
 * answer's frames are checked for `DataSetCompletion`, `HasErrors` and error rows, and a partial
 * answer is an error, never a short result.
 */
import { boundedText, type PlatformClient, VendorAnswerError } from './platform-client.js';

export interface KustoTarget {
  queryUri: string;
  database: string;
}

/** A KQL datetime literal for a query parameter (non-string parameters are given as literals). */
export const kqlDatetime = (d: Date) => `datetime(${d.toISOString()})`;

/** A table name quoted for KQL (`['name']`); settings allow no quote in it. */
export const kqlTable = (name: string) => `['${name.replace(/'/g, '')}']`;

interface Frame {
  FrameType?: string;
  TableKind?: string;
  Columns?: Array<{ ColumnName: string }>;
  Rows?: unknown[];
  HasErrors?: boolean;
  Cancelled?: boolean;
  OneApiErrors?: unknown;
}

/** Kusto's own words from OneApiErrors (`[{ error: { code, message, innererror } }]`), bounded; '' when none. */
export function kustoErrorText(errors: unknown): string {
  const list = Array.isArray(errors) ? errors : errors ? [errors] : [];
  const parts = list.map((e) => {
    const err = (e as { error?: Record<string, unknown> } | null)?.error ?? (e as Record<string, unknown> | null);
    const inner = (err?.innererror as Record<string, unknown> | undefined)?.code;
    return [inner, err?.code, err?.message ?? err?.['@message']].filter((x) => typeof x === 'string' && x).join(' ');
  });
  const text = boundedText(parts.filter(Boolean).join('; '));
  return text ? `: ${text}` : '';
}

/** The primary result's rows as objects keyed by column name. */
export function primaryRows(body: unknown, what: string): Record<string, unknown>[] {
  if (!Array.isArray(body)) throw new VendorAnswerError(`${what} answered without v2 frames`);
  const frames = body as Frame[];
  const completion = frames.find((f) => f.FrameType === 'DataSetCompletion');
  if (!completion) throw new VendorAnswerError(`${what}: the answer ended before DataSetCompletion (cut off)`);
  if (completion.HasErrors || completion.Cancelled) throw new VendorAnswerError(`${what}: the query failed part-way (HasErrors) — nothing of it is used${kustoErrorText(completion.OneApiErrors)}`);
  const table = frames.find((f) => f.FrameType === 'DataTable' && f.TableKind === 'PrimaryResult');
  if (!table || !Array.isArray(table.Columns) || !Array.isArray(table.Rows)) throw new VendorAnswerError(`${what}: no PrimaryResult table`);
  const names = table.Columns.map((c) => c.ColumnName);
  return table.Rows.map((row) => {
    if (!Array.isArray(row)) throw new VendorAnswerError(`${what}: the result holds an error instead of a row${kustoErrorText((row as Frame | null)?.OneApiErrors)}`);
    return Object.fromEntries(names.map((n, i) => [n, row[i]]));
  });
}

export async function kustoQuery(client: PlatformClient, target: KustoTarget, csl: string, parameters: Record<string, string>): Promise<Record<string, unknown>[]> {
  const url = `${target.queryUri.replace(/\/$/, '')}/v2/rest/query`;
  const body = await client.json<unknown>({
    family: 'kusto',
    audience: 'kusto',
    method: 'POST',
    url,
    body: {
      db: target.database,
      csl,
      properties: { Options: { servertimeout: '00:01:00', request_readonly: true, request_app_name: 'Vigia' }, Parameters: parameters },
    },
  });
  return primaryRows(body, `query of ${target.database}`);
}
