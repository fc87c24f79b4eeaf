// Shared shaping of {label, value} statistics lists (pie charts in ntopng).
import { categoryName, protocolInfo } from '../../bindings/engine.js';

export interface Slice {
  label: string;
  value: number;
}

/**
 * ntopng's collapse_stats: largest first; after the first `minSlices`,
 * slices under 1% of the total are summed into one 'Other' slice.
 */
export function collapseStats<T extends Slice>(list: T[], minSlices: number, pctBound = 1): Slice[] {
  const total = list.reduce((a, s) => a + s.value, 0);
  const bound = (total * pctBound) / 100;
  const sorted = [...list].sort((a, b) => b.value - a.value);
  const out: Slice[] = [];
  let other = 0;
  sorted.forEach((s, i) => {
    if (i >= minSlices && s.value < bound) other += s.value;
    else out.push(s);
  });
  if (sorted.length >= minSlices) out.push({ label: 'Other', value: other });
  return out;
}

/** Per-application byte counts grouped as ntopng's computeL7Stats does: by application name, breed or category. */
export function groupL7(apps: { id: number; bytes: number }[], by: 'app' | 'breed' | 'category'): Slice[] {
  const sums = new Map<string, number>();
  for (const a of apps) {
    const p = protocolInfo(a.id);
    const label = by === 'app' ? (p?.name ?? 'Unknown') : by === 'breed' ? (p?.breed ?? 'Unrated') : categoryName(p?.category ?? 0);
    sums.set(label, (sums.get(label) ?? 0) + a.bytes);
  }
  return [...sums].map(([label, value]) => ({ label, value })).sort((a, b) => b.value - a.value);
}
