// Active monitoring endpoints: the page scripts edit_active_monitoring_host.lua
// (add / edit / delete, answering {success, message} or {error, success:
// false} as ntopng) and get_active_monitoring_hosts.lua (the list the UI
// reads). Its export / import / reset: config-io.ts (module
// active_monitoring, ntopng's layout {<measurement>@<host>: {show_iface,
// ifname, threshold, granularity, save_result, readonly}}).
import { track } from '../activity.js';
import { ApiError, RC } from '../rc.js';
import type { ApiCtx } from '../route.js';
import { AmError, MEASUREMENTS, type ActiveMonitoring } from '../../services/active-monitoring/index.js';

function service(ctx: ApiCtx): ActiveMonitoring {
  const a = ctx.deps.activeMonitoring;
  if (!a) throw new ApiError(RC.INTERNAL_ERROR, 'active monitoring is not running');
  return a;
}

export interface EditHostParams {
  action?: string;
  am_host?: string;
  measurement?: string;
  threshold?: string;
  granularity?: string;
  pool?: string;
  ifname?: string;
  old_am_host?: string;
  old_measurement?: string;
  old_granularity?: string;
}

const failed = (error: string) => ({ error, success: false });
const missing = (param: string) => failed(`Missing "${param}" parameter`);

/** /lua/edit_active_monitoring_host.lua */
export async function editHost(ctx: ApiCtx, p: EditHostParams) {
  const am = service(ctx);
  if (!p.action) return failed('Something went wrong (empty action). Reload the page and try again.');
  if (!p.am_host) return missing('am_host');
  if (!p.measurement) return missing('measurement');
  let pool: number | undefined;
  if (p.pool !== undefined) {
    if (!/^\d{1,5}$/.test(p.pool)) return failed(`invalid pool '${p.pool}'`);
    pool = Number(p.pool);
  }
  const input = { host: p.am_host, measurement: p.measurement, threshold: p.threshold, granularity: p.granularity, pool, ifname: p.ifname };
  try {
    switch (p.action) {
      case 'add': {
        const key = await am.add(input);
        track(ctx, 'am_host_add', { key });
        return { message: `Host ${p.am_host} was successfully added!`, success: true };
      }
      case 'edit': {
        if (!p.old_am_host) return missing('old_am_host');
        if (!p.old_measurement) return missing('old_measurement');
        if (!p.old_granularity) return missing('old_granularity');
        const key = await am.edit({ host: p.old_am_host, measurement: p.old_measurement }, input);
        track(ctx, 'am_host_edit', { key, old_key: `${p.old_measurement}@${p.old_am_host}` });
        return { message: `Host ${p.old_am_host} was successfully edited!`, success: true };
      }
      case 'delete':
        await am.delete(p.am_host, p.measurement);
        track(ctx, 'am_host_delete', { key: `${p.measurement}@${p.am_host}` });
        return { message: `Host ${p.am_host} was successfully deleted!`, success: true };
      default:
        return failed('Bad "action" paramater');
    }
  } catch (e) {
    if (e instanceof AmError) return failed(e.message);
    throw e;
  }
}

/** /lua/get_active_monitoring_hosts.lua: one entry per host, as ntopng's fields. */
export function listHosts(ctx: ApiCtx) {
  return service(ctx)
    .list()
    .map((h) => {
      const m = MEASUREMENTS[h.measurement];
      const chart = h.last ? `/lua/monitor/active_monitoring_monitor.lua?am_host=${h.host}&measurement=${h.measurement}&page=historical` : '';
      return {
        key: h.key,
        label: h.host,
        html_label: h.conf.ifname ? `${h.host} [ <span class="fas fa-ethernet"></span> ${h.conf.ifname} ]` : h.host,
        host: h.host,
        alerted: h.alerted ? 1 : 0,
        measurement: m.label,
        measurement_key: h.measurement,
        chart,
        threshold: h.conf.threshold,
        last_measure: h.last ? h.last.value : '',
        value_js_formatter: m.valueJsFormatter,
        // (sic: ntopng's field name)
        last_mesurement_time: h.last ? h.last.when : '',
        last_ip: h.last ? h.last.ip : '',
        ifname: h.conf.ifname,
        granularity: h.conf.granularity,
        availability: h.availability ? h.availability.pct : '',
        hours: h.availability ? h.availability.hours : [],
        unit: m.unit,
        jitter: '',
        pool: h.pool,
        readonly: h.conf.readonly,
      };
    });
}
