// Query results as ntopng answers historical flow records: objects whose
// values are ALL strings (spec "Historical flow record"; its example shows
// "IPV4_SRC_ADDR":"192.168.56.1", "FIRST_SEEN":"1590480420", "IPV6_SRC_ADDR":"::"),
// so IPv4 columns print dotted, times as epoch seconds, numbers in decimal.
import type { Row } from '../backend.js';
import type { Kind } from './ast.js';
import { itemAlias, type OutputColumn } from './compile.js';
import { bytesToIpv6, numToIpv4 } from './ip.js';

type Conv = (v: unknown) => string;

const absent = (v: unknown) => v === null || v === undefined;

/** One converter per kind, chosen once per column rather than per value. */
const CONVERT: Record<Kind, Conv> = {
  ipv4: (v) => (absent(v) ? '' : typeof v === 'number' || typeof v === 'bigint' ? numToIpv4(Number(v)) : String(v)),
  ipv6: (v) => (absent(v) ? '' : v instanceof Uint8Array && v.length === 16 ? bytesToIpv6(v) : String(v)),
  time: (v) => (absent(v) ? '' : typeof v === 'number' ? String(Math.trunc(v)) : String(v)),
  // integers beyond 2^53 arrive as bigint, so String() never writes an exponent for them
  num: (v) => (absent(v) ? '' : String(v)),
  str: (v) => (absent(v) ? '' : String(v)),
  bool: (v) => (absent(v) ? '' : String(v)),
};

function formatRange(rows: Row[], columns: OutputColumn[], from: number, to: number, out: Record<string, string>[]): void {
  const aliases = columns.map((_, i) => itemAlias(i));
  const convs = columns.map((c) => CONVERT[c.kind]);
  const keys = columns.map((c) => c.key);
  for (let r = from; r < to; r++) {
    const row = rows[r];
    const o: Record<string, string> = {};
    for (let i = 0; i < keys.length; i++) o[keys[i]] = convs[i](row[aliases[i]]);
    out.push(o);
  }
}

/** Backend rows (keyed by item alias c0, c1, …) → records keyed as the clause named them. */
export function formatRows(rows: Row[], columns: OutputColumn[]): Record<string, string>[] {
  const out: Record<string, string>[] = [];
  formatRange(rows, columns, 0, rows.length, out);
  return out;
}

/** The same, yielding to the event loop between slices: 10,000 rows × 67 columns take ~100 ms. */
export async function formatRowsYielding(rows: Row[], columns: OutputColumn[], slice = 1000): Promise<Record<string, string>[]> {
  const out: Record<string, string>[] = [];
  for (let from = 0; from < rows.length; from += slice) {
    if (from) await new Promise<void>((resolve) => setImmediate(resolve));
    formatRange(rows, columns, from, Math.min(rows.length, from + slice), out);
  }
  return out;
}

// ── historical_db_search.lua records ─────────────────────────────────────

/** ntopng's bytesToSize: 1024-based units, two decimals at most ("1 Byte", "512 Bytes", "1.5 KB"). */
export function bytesToSize(bytes: number): string {
  if (bytes === 1) return '1 Byte';
  const units: [number, string][] = [
    [1024 ** 4, 'TB'],
    [1024 ** 3, 'GB'],
    [1024 ** 2, 'MB'],
    [1024, 'KB'],
  ];
  for (const [size, unit] of units) if (bytes >= size) return `${round2(bytes / size)} ${unit}`;
  return `${round2(bytes)} Bytes`;
}

/** Lua's tostring of format_utils.round(x, 2): integers bare, else up to two decimals ("2.0" when they round away). */
function round2(x: number): string {
  if (Number.isInteger(x)) return String(x);
  const r = Number(x.toFixed(2));
  return Number.isInteger(r) ? r.toFixed(1) : String(r);
}

/** ntopng's shortenString: past `max` characters (default max_ui_strlen, 24), the first `max` and an ellipsis */
export const shortenString = (s: string, max = 24) => (s.length > max ? `${s.slice(0, max)}\u2026` : s);

export interface HostField {
  value: string;
  title: string;
  label: string;
  tag_key: string;
  ip: string;
  name: string;
  /** ntopng links the host page here; this service has no host page ('') */
  reference: string;
}

/** ntopng's dt_format_ip_common: the address, or the host's name when the flow recorded one. */
function hostField(ip: string, name: string, prefix: 'cli' | 'srv'): HostField {
  const o: HostField = { value: ip, title: ip, label: ip, tag_key: `${prefix}_ip`, ip, name: '', reference: '' };
  if (name && name !== ip) Object.assign(o, { value: name, title: name, name, label: shortenString(name, 16), tag_key: `${prefix}_name` });
  return o;
}

/** The top_conversations rows as historical_db_search.lua answers records (the python client reads cli_ip.ip, srv_name, bytes …). */
export function formatConversations(rows: Row[], columns: OutputColumn[]) {
  return formatRows(rows, columns).map((r) => {
    const v6 = r.IP_PROTOCOL_VERSION === '6';
    const cli = v6 ? r.IPV6_SRC_ADDR : r.IPV4_SRC_ADDR;
    const srv = v6 ? r.IPV6_DST_ADDR : r.IPV4_DST_ADDR;
    const vlan = Number(r.VLAN_ID);
    return {
      vlan_id: { title: vlan ? String(vlan) : '', label: vlan ? String(vlan) : '', value: vlan },
      cli_ip: hostField(cli, r.SRC_LABEL, 'cli'),
      srv_ip: hostField(srv, r.DST_LABEL, 'srv'),
      cli_name: r.SRC_LABEL,
      srv_name: r.DST_LABEL,
      count: r.count,
      bytes: bytesToSize(Number(r.bytes)),
    };
  });
}

/** ntopng's formatValue: thousands separated by commas. */
export const formatValue = (n: number) => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
