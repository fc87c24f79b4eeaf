// Shared shaping of {label, value} statistics lists (pie charts in ntopng).

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
