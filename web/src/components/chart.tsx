// A time chart (uPlot): x in epoch seconds, one line per series. The
// points drawn are kept in data-points (the count of non-null values) so a
// test can tell the chart got the API's data.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Line {
  label: string;
  values: (number | null)[];
  color: string;
}

export function TimeChart({ id, x, lines, unit, height = 220 }: { id: string; x: number[]; lines: Line[]; unit: (n: number) => string; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const shape = lines.map((l) => l.label).join('|');

  useEffect(() => {
    const el = box.current!;
    const opts: uPlot.Options = {
      width: Math.max(300, el.clientWidth),
      height,
      series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.color, width: 1.5, fill: `${l.color}22`, value: (_: uPlot, v: number | null) => (v == null ? '-' : unit(v)) }))],
      axes: [{}, { values: (_: uPlot, ticks: number[]) => ticks.map(unit), size: 96 }],
      // times in UTC, as the pages write them
      tzDate: (ts: number) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
      scales: { x: { time: true } },
    };
    plot.current = new uPlot(opts, [x, ...lines.map((l) => l.values)] as uPlot.AlignedData, el);
    const resize = () => plot.current?.setSize({ width: Math.max(300, el.clientWidth), height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [shape, height]);

  useEffect(() => {
    plot.current?.setData([x, ...lines.map((l) => l.values)] as uPlot.AlignedData);
  }, [x, lines]);

  const points = lines.reduce((n, l) => n + l.values.filter((v) => v !== null && v !== undefined).length, 0);
  return <div class="chart" ref={box} data-testid={id} data-points={points} />;
}

export const COLORS = ['#2563eb', '#16a34a', '#d97706', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d'];
