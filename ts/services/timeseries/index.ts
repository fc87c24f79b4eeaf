// ⑧ The timeseries service: the sampler on the engines' ticks, the store
// behind it, and what the REST endpoints ask of it. Created before the
// engines start (so no tick is missed), connected to the historical store
// once that is open.
import type { Geo } from '../geo/index.js';
import type { Backend } from '../store/backend.js';
import { querySeries, type SeriesData, type SeriesQuery } from './query.js';
import { Sampler, parseTagsText, type InterfaceCounters, type SampledInterface } from './sampler.js';
import { schemaByName, type Schema } from './schemas.js';
import { DEFAULT_RETENTION, TsStore, type Retention } from './store.js';

export { SCHEMAS, schemaByName, schemaFamily, type Schema } from './schemas.js';
export { statistics, totalSerie, type MetricData, type SeriesData, type Statistics } from './query.js';
export { hostTag, parseTagsText, tagsText, type InterfaceCounters } from './sampler.js';
export { DEFAULT_RETENTION, parseRetention, type Retention } from './store.js';

export interface TimeseriesOptions {
  retention?: Retention;
  log?: (line: string) => void;
}

export class Timeseries {
  readonly store: TsStore;
  readonly sampler: Sampler;

  constructor(o: TimeseriesOptions = {}) {
    this.store = new TsStore(o.retention ?? DEFAULT_RETENTION, o.log);
    this.sampler = new Sampler(this.store);
  }

  /** Samples these interfaces at their ticks; before Engine.start(). */
  attach(ifaces: readonly SampledInterface[]): this {
    this.sampler.attach(ifaces);
    return this;
  }

  /** The hosts' ASes: asn:traffic is written from the next 5-minute sample on (before Engine.start() for all of it). */
  setGeo(geo: Geo | null): this {
    this.sampler.geo = geo;
    return this;
  }

  /** The interfaces' alert and export counters: iface:engaged_alerts, dropped_alerts and dumped_flows are written from the next minute on. */
  setCounters(fn: ((ifid: number) => InterfaceCounters) | null): this {
    this.sampler.counters = fn;
    return this;
  }

  connect(backend: Backend): Promise<void> {
    return this.store.connect(backend);
  }

  get available(): boolean {
    return this.store.isConnected;
  }

  /** Everything sampled so far is written and rolled up. */
  flush(): Promise<void> {
    return this.store.flush();
  }

  async series(r: SeriesQuery): Promise<SeriesData> {
    await this.store.flush();
    return querySeries(this.store, r);
  }

  /**
   * Series of a schema on an interface whose leading tags are `fixed`
   * (e.g. the host), with what each carried in [begin, end) summed over its
   * metrics: the candidates of a top query, largest first.
   */
  async seriesTotals(schema: Schema, ifid: number, fixed: string, begin: number, end: number): Promise<{ tags: Record<string, string>; text: string; total: number; byMetric: Record<string, number> }[]> {
    await this.store.flush();
    const level = this.store.levelFor(begin, end);
    const rows = await this.store.totals(level, ifid, schema.name, fixed ? `${fixed},` : '', begin, end);
    const by = new Map<string, { total: number; byMetric: Record<string, number> }>();
    for (const r of rows) {
      const e = by.get(r.tags) ?? { total: 0, byMetric: {} };
      e.total += r.total;
      e.byMetric[r.metric] = (e.byMetric[r.metric] ?? 0) + r.total;
      by.set(r.tags, e);
    }
    return [...by.entries()]
      .map(([text, e]) => ({ text, tags: parseTagsText(text), ...e }))
      .sort((a, b) => b.total - a.total || (a.text < b.text ? -1 : 1));
  }

  schema(name: string): Schema | undefined {
    return schemaByName(name);
  }
}
