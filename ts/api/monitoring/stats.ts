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

/**
 * computeL7Stats with ndpi_category: the category counters (each flow's own
 * category, which the operator's rules may set, not its application's
 * default), summed by category name, largest first.
 */
export function groupCategories(cats: { id: number; bytes: number }[]): Slice[] {
  const sums = new Map<string, number>();
  for (const c of cats) sums.set(categoryName(c.id), (sums.get(categoryName(c.id)) ?? 0) + c.bytes);
  return [...sums].map(([label, value]) => ({ label, value })).sort((a, b) => b.value - a.value);
}

/** graph_utils.graph_colors: d3's category10, then category20 */
const GRAPH_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf',
  '#ffbb78', '#1f77b4', '#aec7e8', '#2ca02c', '#98df8a', '#d62728', '#ff9896', '#9467bd', '#c5b0d5', '#8c564b',
  '#c49c94', '#e377c2', '#f7b6d2', '#7f7f7f', '#c7c7c7', '#bcbd22', '#dbdb8d', '#17becf', '#9edae5'];

/**
 * graph_utils.convert_pie_data: with `new_charts` (ntopng's own dashboard
 * asks so) a list of slices becomes the ApexCharts donut its pie component
 * draws — labels, series, one palette colour per slice and the JS
 * formatter named for the axis and tooltip; without, the list as is.
 */
export function pieData(list: Slice[], newCharts: boolean | undefined, formatter: 'bytesToSize' | 'formatValue' | 'fbits') {
  if (!newCharts) return list;
  return {
    labels: list.map((s) => s.label),
    series: list.map((s) => s.value),
    colors: list.map((_, i) => GRAPH_COLORS[i % GRAPH_COLORS.length]),
    yaxis: { show: false, labels: { formatter } },
    tooltip: { y: { formatter } },
    extra_x_tooltip_label: 'None',
  };
}
