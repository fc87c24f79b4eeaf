// Query results as ntopng answers historical flow records: objects whose
// values are ALL strings (spec "Historical flow record"; its example shows
// "IPV4_SRC_ADDR":"192.168.56.1", "FIRST_SEEN":"1590480420", "IPV6_SRC_ADDR":"::"),
// so IPv4 columns print dotted, times as epoch seconds, numbers in decimal.
import type { Row } from '../backend.js';
import type { Kind } from './ast.js';
import { itemAlias, type OutputColumn } from './compile.js';
import { bytesToIpv6, numToIpv4 } from './ip.js';

function text(v: unknown, kind: Kind): string {
  if (v === null || v === undefined) return '';
  switch (kind) {
    case 'ipv4':
      return typeof v === 'number' || typeof v === 'bigint' ? numToIpv4(Number(v)) : String(v);
    case 'ipv6':
      return v instanceof Uint8Array && v.length === 16 ? bytesToIpv6(v) : String(v);
    case 'time':
      return typeof v === 'number' ? String(Math.trunc(v)) : String(v);
    default:
      if (typeof v === 'number') return Number.isInteger(v) ? v.toFixed(0) : String(v);
      return String(v);
  }
}

/** Backend rows (keyed by item alias c0, c1, …) → records keyed as the clause named them. */
export function formatRows(rows: Row[], columns: OutputColumn[]): Record<string, string>[] {
  const aliases = columns.map((_, i) => itemAlias(i));
  return rows.map((r) => {
    const o: Record<string, string> = {};
    for (let i = 0; i < columns.length; i++) o[columns[i].key] = text(r[aliases[i]], columns[i].kind);
    return o;
  });
}
