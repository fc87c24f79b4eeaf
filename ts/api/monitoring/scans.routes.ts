// Route declarations of the active scan family (v2): hosts to scan with nmap
// (services/scans), their schedules, results and reports. The spec names
// add/host/to_scan and exec/host/schedule_active_scan; the rest are the
// scripts ntopng's scan page calls for the same entries (schedule_vulnerability_scan
// is ntopng's current name of the second).
import { track } from '../activity.js';
import { bool, int, str, toBool } from '../params.js';
import { ApiError, RC } from '../rc.js';
import { route, type ApiCtx, type RouteDef } from '../route.js';
import { ScanError, type Scans } from '../../services/scans/index.js';

const scans = (ctx: ApiCtx): Scans => {
  if (!ctx.deps.scans) throw new ApiError(RC.INTERNAL_ERROR, 'active scans are not running');
  return ctx.deps.scans;
};

/** a bad or missing value is ntopng's bad_content (-8) */
async function guarded<T>(f: () => Promise<T> | T): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ScanError) throw new ApiError(RC.BAD_CONTENT, e.message);
    throw e;
  }
}

const SCHEDULE = {
  host: str(256).optional(),
  scan_type: str(32).optional(),
  scan_ports: str(4096).optional(),
  scan_single_host: toBool().optional(),
  scan_id: str(32).optional(),
  vs_cidr: str(8).optional(),
};

const schedule = (path: string, summary: string) =>
  route({
    path, versions: ['v2'], method: 'POST', perm: 'admin', summary,
    params: SCHEDULE,
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR, RC.BAD_CONTENT],
    handler: (ctx, p) =>
      guarded(async () => {
        if (p.scan_single_host) await scans(ctx).scheduleOne(p.host, p.scan_type, p.scan_ports);
        else await scans(ctx).scheduleAll();
        track(ctx, 'schedule_active_scan', { host: p.host, scan_type: p.scan_type, scan_single_host: !!p.scan_single_host });
        return []; // rest_utils.answer(ok): an empty Lua table
      }),
  });

export const scanRoutes: RouteDef[] = [
  route({
    path: 'add/host/to_scan', versions: ['v2'], method: 'POST', perm: 'admin',
    summary:
      'Adds a host to scan and schedules its first scan: host (address, name, or with ipv4_netscan a network), scan_type (get/host/vulnerability_scan_type_list), scan_ports (ports and ranges, comma-separated; empty: nmap\'s default set), scan_frequency (disabled, 1day, 1week), cidr / vs_cidr (with a port scan: every host of the network found up is added; with ipv4_netscan: the network, default 24), discovered_host_scan_type (ipv4_netscan: the scan types each host found gets), is_edit. rsp {rsp: 1} added, 2 already there (updated, scheduled again), 3 no host found up (ntopng\'s inner rsp). -8 a missing or bad value',
    params: {
      host: str(256).optional(), scan_type: str(32).optional(), scan_ports: str(4096).optional(), scan_frequency: str(16).optional(),
      scan_id: str(32).optional(), cidr: str(8).optional(), vs_cidr: str(8).optional(), discovered_host_scan_type: str(64).optional(), is_edit: toBool().optional(),
    },
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR, RC.BAD_CONTENT],
    handler: (ctx, p) =>
      guarded(async () => {
        const rsp = await scans(ctx).add({ ...p, cidr: p.vs_cidr ?? p.cidr }, !!p.is_edit);
        track(ctx, p.is_edit ? 'edit_host_to_scan' : 'add_host_to_scan', { host: p.host, scan_type: p.scan_type, scan_ports: p.scan_ports, scan_frequency: p.scan_frequency });
        return { rsp }; // ntopng answers {rsp = n} inside the envelope's rsp (its page reads result.rsp)
      }),
  }),
  schedule('exec/host/schedule_active_scan', 'Scans now: with scan_single_host the entry of host and scan_type (scan_ports, when given, become its ports; -8 no such entry), else every entry'),
  schedule('exec/host/schedule_vulnerability_scan', "ntopng's current name of exec/host/schedule_active_scan"),
  route({
    path: 'get/host/to_scan_list', versions: ['v2'], method: 'GET', perm: 'user',
    summary:
      "The hosts to scan with their last results: is_ok_last_scan (0 error, 1 ok, 2 scheduled, 3 not scanned, 4 scanning, 5 host down), last_scan {epoch, time, duration, duration_epoch}, num_open_ports, tcp_ports / udp_ports and their lists ('22/tcp (ssh),…'), is_down, was_down, discovered_hosts, and the ports the host was seen serving compared (host_in_mem, *_ports_unused, *_ports_filtered, *_ports_case). Filters: map_search (host or name contains), port (an open port), was_down, netscan_report; sort=ip",
    params: { map_search: str(256).optional(), sort: str(16).optional(), port: str(8).optional(), was_down: toBool().optional(), netscan_report: toBool().optional(), epoch_end: str(16).optional() },
    errors: [RC.NOT_GRANTED, RC.INTERNAL_ERROR],
    handler: (ctx, p) => scans(ctx).overview({ search: p.map_search, sort: p.sort, port: p.port, wasDown: p.was_down, netscanReport: p.netscan_report }),
  }),
  route({
    path: 'get/host/vulnerability_scan_result', versions: ['v2'], method: 'GET', perm: 'user',
    summary: "nmap's report of the last scan of host with scan_type (or of the scan at epoch; the newest 8 are kept): with scan_return_result as {rsp: text}, else as a text attachment. -5 missing or unknown entry",
    params: { host: str(256).optional(), scan_type: str(32).optional(), scan_return_result: toBool().optional(), epoch: int(0, 2 ** 40).optional() },
    errors: [RC.NOT_GRANTED, RC.INVALID_ARGUMENTS],
    handler: (ctx, p) => {
      const host = p.host?.trim() ?? '', type = p.scan_type?.trim() ?? '';
      if (!host || !type) throw new ApiError(RC.INVALID_ARGUMENTS, 'host and scan_type are required');
      const text = scans(ctx).report(host, type, p.epoch);
      if (text === null) throw new ApiError(RC.INVALID_ARGUMENTS, `no scan of ${host.slice(0, 64)} with type ${type.slice(0, 32)}`);
      if (p.scan_return_result) return { rsp: text };
      const name = `scan_result_export_${Math.floor(Date.now() / 1000)}_${host}_${type}.txt`.replace(/[^\w.:-]/g, '_');
      return new Response(text, { headers: { 'content-type': 'application/octet-stream', 'content-disposition': `attachment;filename="${name}"` } });
    },
  }),
  route({
    path: 'get/host/vulnerability_scan_status', versions: ['v2'], method: 'GET', perm: 'user',
    summary: 'rsp {rsp: {total, total_in_progress, total_in_success}}: how many entries there are, how many are scheduled or scanning and how many are not',
    params: {},
    errors: [RC.NOT_GRANTED],
    handler: (ctx) => ({ rsp: scans(ctx).status() }),
  }),
  route({
    path: 'get/host/vulnerability_scan_type_list', versions: ['v2'], method: 'GET', perm: 'user',
    summary: 'The scan types nmap can run here: rsp {rsp: [{id, label}]} (none without nmap; udp_portscan needs root)',
    params: {},
    errors: [RC.NOT_GRANTED],
    handler: (ctx) => ({ rsp: scans(ctx).typeList() }),
  }),
  route({
    path: 'delete/host/delete_host_to_scan', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Removes the entry of host and scan_type (its running scan stopped, its reports deleted), or every entry with delete_all_scan_hosts. -8 missing host or scan_type',
    params: { host: str(256).optional(), scan_type: str(32).optional(), delete_all_scan_hosts: bool().optional() },
    errors: [RC.NOT_GRANTED, RC.BAD_CONTENT],
    handler: (ctx, p) =>
      guarded(async () => {
        await scans(ctx).delete(p.host, p.scan_type, !!p.delete_all_scan_hosts);
        track(ctx, 'delete_host_to_scan', p);
        return [];
      }),
  }),
  route({
    path: 'edit/host/update_va_scan_period', versions: ['v2'], method: 'POST', perm: 'admin',
    summary: 'Sets every entry\'s scan_frequency (disabled, 1day, 1week): a periodic entry is scanned again once its period has passed since its last scan. -8 another value',
    params: { scan_frequency: str(16).optional() },
    errors: [RC.NOT_GRANTED, RC.BAD_CONTENT],
    handler: (ctx, p) =>
      guarded(async () => {
        await scans(ctx).setAllFrequencies(p.scan_frequency);
        track(ctx, 'update_va_scan_period', p);
        return true;
      }),
  }),
];
