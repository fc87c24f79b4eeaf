// ⑧ Reading the historical flows: the one place the flows-database
// endpoints reach the store. Each call parses the request's clauses
// (query/parse.ts: a QueryError for anything not whitelisted), adds the
// window, interface and user scope, compiles for the backend's dialect
// (query/compile.ts) and formats the rows as ntopng answers them
// (query/format.ts). Results are bounded (maxhits ≤ 10000, pages ≤ 10000).
import type { Backend } from './backend.js';
import { catalogOf, type ColumnCatalog } from './query/ast.js';
import { conversationsQuery, flowsQuery, tagFilters, topkQuery, type FlowsClauses, type SearchPage, type TopkClauses, type Window } from './query/build.js';
import { compiler } from './query/compile.js';
import { formatConversations, formatRowsYielding, formatValue } from './query/format.js';
import { COLUMN_TAGS, ntopngTypes } from './query/tags.js';

export { QueryError } from './query/parse.js';
export type { FlowsClauses, SearchPage, TopkClauses, Window };

/** A flows table as the query layer sees it: its name and columns (FLOWS_TABLE in production). */
export interface FlowsTable {
  name: string;
  columns: readonly { name: string; type: import('./backend.js').ColType; label?: string }[];
}

export interface ColumnInfo {
  column_name: string;
  /** ntopng's tag (filter/record name), when it has one */
  tag?: string;
  label?: string;
  db_type: string;
  db_raw_type: string;
}

export interface SearchResult {
  records: ReturnType<typeof formatConversations>;
  /** conversations matching (all pages) */
  total: number;
  /** flow rows read to build them */
  rowsRead: number;
  ms: number;
  sql: string;
}

export class FlowsQuery {
  readonly catalog: ColumnCatalog;

  /** `aliases`: other names a clause may give columns (upper case → the table's column name) */
  constructor(
    private readonly backend: Backend,
    private readonly table: FlowsTable,
    aliases: Readonly<Record<string, string>> = {},
  ) {
    const c = catalogOf(table.name, table.columns);
    const byName = new Map(c.byName);
    for (const [alias, col] of Object.entries(aliases)) {
      const target = c.byName.get(col);
      if (target && !byName.has(alias)) byName.set(alias, target);
    }
    this.catalog = { ...c, byName };
  }

  private compiler() {
    return compiler(this.backend.dialect, this.catalog);
  }

  /** get/db/flows.lua: records whose values are all strings. */
  async flows(c: FlowsClauses, w: Window): Promise<Record<string, string>[]> {
    const q = this.compiler().select(flowsQuery(this.catalog, c, w));
    return formatRowsYielding(await this.backend.query(q), q.columns);
  }

  /** get/db/topk_flows.lua: the keys and their aggregated value, largest first. */
  async topk(c: TopkClauses, w: Window): Promise<Record<string, string>[]> {
    const q = this.compiler().select(topkQuery(this.catalog, c, w));
    return formatRowsYielding(await this.backend.query(q), q.columns);
  }

  /** get/db/columns_info.lua: every column with ntopng's tag and types. */
  columns(): ColumnInfo[] {
    return this.table.columns.map((c) => ({
      column_name: c.name,
      ...(COLUMN_TAGS[c.name] ? { tag: COLUMN_TAGS[c.name] } : {}),
      ...(c.label ? { label: c.label } : {}),
      ...ntopngTypes(c.name, c.type),
    }));
  }

  /** historical_db_search.lua, query_preset=top_conversations: one page and the totals. */
  async topConversations(page: SearchPage, filters: Record<string, string | undefined>, w: Window): Promise<SearchResult> {
    const sel = conversationsQuery(this.catalog, page, tagFilters(this.catalog, filters), w);
    const cmp = this.compiler();
    const q = cmp.select(sel);
    const count = cmp.count(sel);
    const t0 = performance.now();
    const [rows, totals] = await Promise.all([this.backend.query(q), this.backend.query(count)]);
    const ms = performance.now() - t0;
    return {
      records: formatConversations(rows, q.columns),
      total: Number(totals[0]?.groups ?? 0),
      rowsRead: Number(totals[0]?.rows ?? 0),
      ms,
      sql: q.sql,
    };
  }
}

/** ntopng's stats line of a historical query ("Processed %{records} records [%{rps} records/sec]"). */
export function processedRecords(rows: number, ms: number): string {
  return `Processed ${formatValue(rows)} records [${formatValue(ms > 0 ? (rows * 1000) / ms : rows)} records/sec]`;
}
