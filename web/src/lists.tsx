/**
 * The parts every list page is made of: the GET that loads it, the loading / failure / empty /
 * content states, the table, removing a row after a confirmation, and the pager. The pages
 * (API keys, members, tokens, silences, destinations, tenants, inventory, alerts, deliveries,
 * overview…) compose these instead of writing the shell again.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useConsole } from './app-context.js';
import { ConfirmAction, Empty, ErrorMessage, Loading, useLoad, usePageTitle, useRemoval } from './components.js';
import { Link } from './router.js';

/** What `useLoad` answers: the data once loaded, the failure, whether it is loading, and a reload. */
export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** GET `path` of the admin API on mount and whenever the path (or `deps`) change; leaving the page aborts it. */
export function useGet<T>(path: string, deps: unknown[] = []): Loaded<T> {
  const { call } = useConsole();
  return useLoad((signal) => call<T>('GET', path, undefined, signal), [path, ...deps]);
}

/**
 * The states of loaded data: "loading" (only the first time, unless `whileReloading`), the failure
 * with a retry, the empty text when `count` says there is nothing, else `children(data)`.
 */
export function LoadState<T>(props: {
  list: Loaded<T>;
  empty?: string;
  /** How many rows the data holds; an array's length unless told. */
  count?: (data: T) => number;
  whileReloading?: boolean;
  children: (data: T) => ComponentChildren;
}) {
  const { list } = props;
  const count = props.count ?? ((d: T) => (Array.isArray(d) ? d.length : 1));
  return (
    <>
      {list.loading && (props.whileReloading || !list.data) && <Loading />}
      <ErrorMessage error={list.error} onRetry={list.reload} />
      {list.data !== undefined && (count(list.data) === 0 ? props.empty !== undefined && <Empty>{props.empty}</Empty> : props.children(list.data))}
    </>
  );
}

/** A list page: its title (also the tab's), what comes before the list, the list's states, what comes after. */
export function ListPage<T>(props: {
  title: string;
  list: Loaded<T>;
  empty: string;
  count?: (data: T) => number;
  whileReloading?: boolean;
  before?: ComponentChildren;
  after?: ComponentChildren;
  children: (data: T) => ComponentChildren;
}) {
  usePageTitle(props.title);
  return (
    <section>
      <h1>{props.title}</h1>
      {props.before}
      <LoadState list={props.list} empty={props.empty} count={props.count} whileReloading={props.whileReloading}>
        {props.children}
      </LoadState>
      {props.after}
    </section>
  );
}

/** One column of a `DataTable`. */
export interface Column<T> {
  label: string;
  /** Said to screen readers only (a column of buttons), and no label before its cells on a phone. */
  hidden?: boolean;
  /** The column that names the row: its cells are `<th scope="row">`. */
  rowHeader?: boolean;
  /** `class` of the header and the cells (`text`: left-aligned words in a table of numbers). */
  class?: string;
  cell: (row: T, index: number) => ComponentChildren;
  /** The number (or text) the cell shows, as `data-value`, for the tests and anyone reading the page. */
  value?: (row: T, index: number) => string | number | null | undefined;
  /** More attributes of each cell (`data-testid`…). */
  attrs?: (row: T) => Record<string, string>;
}

/**
 * A table of rows. `list` makes it the console's list table (`table.list`: on a phone each cell
 * shows its column's label before it); `wrap` puts it in a horizontally scrolling box.
 */
export function DataTable<T>(props: {
  columns: Array<Column<T> | false>;
  rows: T[];
  rowKey: (row: T) => string | number;
  rowAttrs?: (row: T) => Record<string, string>;
  list?: boolean;
  /** More classes of the table (beside `list`). */
  tableClass?: string;
  wrap?: boolean;
  id?: string;
  testId?: string;
  caption?: ComponentChildren;
  captionClass?: string;
  foot?: ComponentChildren;
}) {
  const columns = props.columns.filter((c): c is Column<T> => c !== false);
  const table = (
    <table id={props.id} class={[props.list ? 'list' : '', props.tableClass ?? ''].join(' ').trim() || undefined} data-testid={props.testId}>
      {props.caption !== undefined && <caption class={props.captionClass}>{props.caption}</caption>}
      <thead>
        <tr>
          {columns.map((c, i) => (
            <th key={i} scope="col" class={c.class}>
              {c.hidden ? <span class="sr-only">{c.label}</span> : c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {props.rows.map((row, r) => (
          <tr key={props.rowKey(row)} {...props.rowAttrs?.(row)}>
            {columns.map((c, i) => {
              const Cell = c.rowHeader ? 'th' : 'td';
              const value = c.value?.(row, r);
              return (
                <Cell
                  key={i}
                  scope={c.rowHeader ? 'row' : undefined}
                  class={c.class}
                  data-label={props.list && !c.hidden && !c.rowHeader ? c.label : undefined}
                  data-value={value === null ? '' : value}
                  {...c.attrs?.(row)}
                >
                  {c.cell(row, r)}
                </Cell>
              );
            })}
          </tr>
        ))}
      </tbody>
      {props.foot && <tfoot>{props.foot}</tfoot>}
    </table>
  );
  return props.wrap ? <div class="table-wrap">{table}</div> : table;
}

/** What removing one row says: the button, the confirmation, which rows offer it, the row's name for screen readers. */
export interface RowRemoval<T> {
  label: string;
  question: (row: T) => string;
  name: (row: T) => string;
  id: (row: T) => string;
  offered: (row: T) => boolean;
  danger?: boolean;
}

/**
 * A list table whose rows can be removed (revoked, ended) after a confirmation: DELETE
 * `{path}/{id}`, then `onChange` (the list reloads); a refusal shows above the table.
 */
export function RemovableTable<T>(props: {
  path: string;
  onChange: () => void;
  columns: Array<Column<T> | false>;
  rows: T[];
  rowKey: (row: T) => string;
  rowAttrs?: (row: T) => Record<string, string>;
  caption?: string;
  removal: RowRemoval<T>;
}) {
  const removal = useRemoval(props.path, props.onChange);
  const r = props.removal;
  const removeColumn: Column<T> = {
    label: r.label,
    hidden: true,
    cell: (row) =>
      r.offered(row) && (
        <ConfirmAction danger={r.danger} label={r.label} accessibleLabel={`${r.label}: ${r.name(row)}`} question={r.question(row)} onConfirm={() => removal.remove(r.id(row))} />
      ),
  };
  return (
    <>
      <ErrorMessage error={removal.error} />
      <DataTable
        list
        caption={props.caption}
        captionClass="sr-only"
        columns={[...props.columns, removeColumn]}
        rows={props.rows}
        rowKey={props.rowKey}
        rowAttrs={props.rowAttrs}
      />
    </>
  );
}

/** Pages of a long list: previous, "page n of m", next; shown only when there is more than one page. */
export function Pager(props: { label: string; page: number; pages: number; onPage: (page: number) => void }) {
  const { t } = useConsole();
  const { page, pages } = props;
  if (pages <= 1) return null;
  return (
    <nav class="pager" aria-label={props.label}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => props.onPage(page - 1)}>
        {t('previous')}
      </button>
      <span>{t('pageOf', { page, pages })}</span>
      <button type="button" class="secondary" disabled={page >= pages} onClick={() => props.onPage(page + 1)}>
        {t('next')}
      </button>
    </nav>
  );
}

/** How many pages `total` rows make at `pageSize` a page (at least one). */
export function pageCount(total: number | undefined, pageSize: number): number {
  return total === undefined ? 1 : Math.max(1, Math.ceil(total / pageSize));
}

/** A page whose subject is not in this organization: says so, with the way back to its list. */
export function NotFound(props: { text: string; back: string }) {
  const { t } = useConsole();
  return (
    <section>
      <p class="error" role="alert">
        {props.text}
      </p>
      <Link href={props.back}>{t('back')}</Link>
    </section>
  );
}

/** One term of a `<dl class="facts">` and its value. */
export function Fact(props: { label: string; class?: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd class={props.class}>{props.children}</dd>
    </>
  );
}

/**
 * A filtered, paged list's filters: `draft` as typed, `applied` as sent (applying goes back to
 * the first page), and the page.
 */
export function useFilters<F extends Record<string, string>>(initial: F) {
  const [draft, setDraft] = useState<F>(initial);
  const [applied, setApplied] = useState<F>(initial);
  const [page, setPage] = useState(1);
  return {
    draft,
    // From the latest state: two filters changed before a re-render both count.
    setDraft: (k: keyof F, value: string) => setDraft((prev) => ({ ...prev, [k]: value })),
    applied,
    apply: (next: F) => {
      setPage(1);
      setApplied(next);
    },
    page,
    setPage,
  };
}

/** One page of a paged answer of the admin API. */
export interface Paged<T> {
  value: T[];
  totalCount: number;
}

/** A paged list: its states, one `<li>` per item (from `item`), and the pager under it. */
export function PagedList<T>(props: {
  list: Loaded<Paged<T>>;
  empty: string;
  class: string;
  label: string;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
  item: (item: T) => ComponentChildren;
  /** The page's items drawn together (to fold some under one line); `item` each unless given. */
  items?: (items: T[]) => ComponentChildren;
}) {
  const { list } = props;
  return (
    <>
      <LoadState list={list} empty={props.empty} count={(d) => d.value.length}>
        {(d) => <ul class={props.class}>{props.items ? props.items(d.value) : d.value.map(props.item)}</ul>}
      </LoadState>
      {list.data && <Pager label={props.label} page={props.page} pages={pageCount(list.data.totalCount, props.pageSize)} onPage={props.onPage} />}
    </>
  );
}
