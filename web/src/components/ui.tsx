// Small building blocks shared by the pages: loading an API answer, a
// sortable table, a pager, a figure card, an error line.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  reload: () => void;
}

/** Runs `load` when deps change (and every `everyMs` when given); the last answer wins. */
export function useApi<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const n = ++seq.current;
    load().then(
      (d) => {
        if (n !== seq.current) return;
        setData(d);
        setError(undefined);
      },
      (e: Error) => n === seq.current && setError(e.message),
    );
  }, [...deps, tick]);
  useEffect(() => {
    if (!everyMs) return;
    const t = setInterval(() => setTick((x) => x + 1), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return { data, error, reload: () => setTick((x) => x + 1) };
}

export const Err = ({ error }: { error?: string }) => (error ? <p class="error" role="alert" data-testid="error">{error}</p> : null);

export function Card({ id, label, value, text }: { id: string; label: string; value: number | undefined; text: (n: number) => string }) {
  return (
    <div class="card" data-testid={id} data-value={value ?? ''}>
      <div class="label">{label}</div>
      <div class="value">{value === undefined ? '…' : text(value)}</div>
    </div>
  );
}

export interface Column<R> {
  key: string;
  label: string;
  /** the API's sortColumn for this column (none: not sortable) */
  sort?: string;
  render: (r: R) => ComponentChildren;
  /** the raw value, kept in data-value (tests compare it with the API) */
  value?: (r: R) => string | number;
  num?: boolean;
}

export interface Sorting {
  column: string;
  order: 'asc' | 'desc';
}

export function Table<R>(p: { id: string; columns: Column<R>[]; rows: R[] | undefined; sort?: Sorting; onSort?: (s: Sorting) => void; empty?: string }) {
  const { id, columns, rows, sort, onSort } = p;
  return (
    <table data-testid={id}>
      <thead>
        <tr>
          {columns.map((c) => {
            const active = sort && c.sort === sort.column;
            const next = (): Sorting => ({ column: c.sort!, order: active && sort!.order === 'desc' ? 'asc' : 'desc' });
            return (
              <th
                data-col={c.key}
                data-sort={c.sort}
                class={`${c.num ? 'num' : ''} ${c.sort && onSort ? 'sortable' : ''} ${active ? sort!.order : ''}`}
                aria-sort={active ? (sort!.order === 'asc' ? 'ascending' : 'descending') : undefined}
                onClick={c.sort && onSort ? () => onSort(next()) : undefined}
              >
                {c.label}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>
        {rows === undefined ? (
          <tr>
            <td colSpan={columns.length}>Loading…</td>
          </tr>
        ) : rows.length === 0 ? (
          <tr class="empty">
            <td colSpan={columns.length}>{p.empty ?? 'Nothing to show'}</td>
          </tr>
        ) : (
          rows.map((r) => (
            <tr>
              {columns.map((c) => (
                <td data-col={c.key} data-value={c.value ? c.value(r) : undefined} class={c.num ? 'num' : ''}>
                  {c.render(r)}
                </td>
              ))}
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

export function Pager({ id, page, perPage, total, onPage }: { id: string; page: number; perPage: number; total: number | undefined; onPage: (p: number) => void }) {
  const pages = Math.max(1, Math.ceil((total ?? 0) / perPage));
  return (
    <div class="pager" data-testid={`${id}-pager`}>
      <button data-page="prev" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        ‹ Previous
      </button>
      <span>
        Page <b data-testid={`${id}-page`}>{page}</b> of {pages} · <b data-testid={`${id}-total`} data-value={total ?? ''}>{total ?? '…'}</b> rows
      </span>
      <button data-page="next" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next ›
      </button>
    </div>
  );
}

export const Section = ({ title, children, id }: { title: string; children: ComponentChildren; id?: string }) => (
  <section class="panel" data-testid={id}>
    <h2>{title}</h2>
    {children}
  </section>
);
