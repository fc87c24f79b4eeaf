// The `flowgate` command line: parses options, starts one engine per -i,
// reports progress, and stops cleanly on SIGINT/SIGTERM.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import { FlowgateError } from '../bindings/errors.js';
import { Engine, type EgressConfig, type EgressOutput } from '../bindings/engine.js';
import { startChecking, type Checking } from '../services/checks/index.js';
import { ConfigStore } from '../services/config-store.js';
import { Interfaces, isCaptureFile, type InterfaceSpec } from '../services/interfaces.js';
import { isCommitError } from '../services/config-store.js';
import { Timeseries, parseRetention } from '../services/timeseries/index.js';
import { Geo, geoFiles } from '../services/geo/index.js';
import { startHistory, type History } from '../services/store/history.js';
import { formatRate, Reporter } from './progress.js';
import { interfaceCounters, startEgressApi, startEgressPolicies, startMonitoringApi, type EgressApi, type EgressPolicies, type MonitoringApi } from './serve.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const projectRoot = existsSync(join(root, 'package.json')) ? root : join(root, '..');

/** The capture `npm start` replays when no interface is named. */
export const BUNDLED_CAPTURE = join(projectRoot, 'assets', 'sample.pcap');

const USAGE = `Usage: flowgate [options]
       flowgate passwd <user> [--kv <url>] [--product <word>] [--data-dir <dir>] [--redis-host <h> --redis-port <p>]

Monitors network interfaces or replays capture files; \`passwd\` stores an egress API password.

  -i, --interface <name|file>   interface or pcap/pcapng file; repeat for more (ifid = position).
                                Default: the bundled sample capture, replayed in a loop.
  -m, --local-networks <list>   comma-separated CIDRs counted as local, added to the interfaces'
                                own addresses (default 10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7)
  -p, --protocols <file>        custom protocols in nDPI's protos.txt format (ports, host names,
                                addresses); the application editor endpoints rewrite it
      --max-flows <n>           flow table size per interface (default 131072)
      --max-hosts <n>           host table size per interface (default 131072)
      --flow-info-share <x>     share of the flow table with classifier state at once (default 1)
      --flow-meta-share <x>     share with protocol metadata (names, JA3/JA4, HTTP …) (default 1)
      --l7-entries-per-host <n> per-application and contact entries per host slot (default 5)
      --host-side-share <x>     share of the host table with local hosts' sites, ICMP, used ports and
                                behavioural counters at once (default 1)
      --workers <n>             packet workers per interface (default: the CPUs less one, 1 to 16)
      --flow-idle <s>           idle flow timeout in seconds (default 60)
      --flow-lifetime <s>       split flows older than this (default 0: never)
      --replay-speed <x>        0 = as fast as possible (default), 1 = original timing, 2 = twice as fast
      --loop                    replay capture files forever
      --bpf <filter>            BPF filter for live interfaces
      --snaplen <n>             capture length for live interfaces (default 65535)
      --no-promisc              do not put live interfaces in promiscuous mode
      --ring-mb <n>             kernel capture ring per live interface, MiB (default 64); what does
                                not fit while the worker is busy is dropped and counted (drops)
      --exit-when-done          exit once every capture file has been replayed
      --record                  keep every packet of each interface in rotating pcap files (n2disk-
                                style), for get/pcap/live_extraction; a replayed file without it is
                                its own recording
      --record-dir <dir>        where recordings go, one directory per ifid (default
                                <data-dir>/recordings; implies --record)
      --record-max-gb <n>       disk kept per interface, oldest files deleted first (default 1;
                                at least 0.01; implies --record)
      --http-port <n>           monitoring REST API port (default 3000; 0 = do not serve it)
      --bind <addr>             address the APIs listen on (default 0.0.0.0)
      --data-dir <dir>          configuration and data directory (default ./data)
      --tls-cert <file>         PEM certificate: serve the APIs over HTTPS
      --tls-key <file>          PEM private key of --tls-cert (default: the same file)
      --egress-port <n>         egress policy REST API port (default 8880; 0 = do not serve it)
      --kv <url>                egress API credential store: lmdb (default, in --data-dir) or
                                redis://host:port[/db]
      --kv-product <word>       product word of the credential keys <word>.user.<name>.password (default cento)
      --aggregated-egress <out>  an aggregated egress queue (repeat for queue 1, 2, …) fed by the first
                                interface: an interface name, or a capture file (pcap:<path> or *.pcap)
      --balanced-egress <out>   a balanced egress queue (repeat: flows spread over them by IP pair)
      --bridge <ifA>,<ifB>      forward inline between two interfaces, both directions, under the
                                bridge policy (replaces -i)
      --edge-lan <if>           gateway ('edge') mode: a LAN interface (repeat for more); without -i
                                the LAN interfaces are the ones monitored
      --edge-wan <if>           gateway mode: a WAN interface (repeat for more)
      --egress-rotate-mb <n>    start a new egress capture file every n MB (default 1024; 0 = never)
      --egress-rules <file>     Cento-style INI rules file ([shunt], [egress.aggregated…], [bridge…]);
                                re-read on SIGHUP
      --ts-retention-days <r,h,d>  days timeseries points are kept at 1/5-minute, hour and day
                                resolution (default 1,100,365, as ntopng's RRDs), counted back from
                                the newest packet time
      --clickhouse <url>        historical store on ClickHouse, http://host:8123/<db> (default: DuckDB
                                in <data-dir>/history.duckdb)
      --clickhouse-user <name>  ClickHouse user (default: the URL's, else default)
      --clickhouse-password <pw>  ClickHouse password (default: the URL's, else empty)
      --history-retention-days <n>  days of flows kept, oldest day dropped first (default 30; 0 = no limit)
      --history-max-gb <n>      also drop the oldest days while the store is larger than this
      --geoip-dir <dir>         the operator's own MaxMind-format databases: GeoLite2-City.mmdb and
                                GeoLite2-ASN.mmdb (or dbip-city*.mmdb, dbip-asn*.mmdb) (default: the
                                shipped DB-IP Lite databases)
      --admin-password <pw>     password of user admin when the data directory is new
                                (default: $FLOWGATE_ADMIN_PASSWORD, else generated and printed once)
      --log-level <level>       error, warn, info (default) or debug (logs every API request)
      --metrics-open-loopback   GET /metrics without credentials for clients on 127.0.0.1 / ::1 (a
                                local Prometheus); other clients still need the API's credentials
  -q, --quiet                   no progress bar or per-second summary
  -h, --help                    this help
  -V, --version                 print the version
`;

function num(v: string | undefined, name: string, min = 0): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < min) throw new FlowgateError(`--${name} must be a number >= ${min} (got '${v}')`, 'E_INVALID');
  return n;
}

/** num() for a whole number option (a count). */
function int(v: string | undefined, name: string, min = 0): number | undefined {
  const n = num(v, name, min);
  if (n !== undefined && !Number.isInteger(n)) throw new FlowgateError(`--${name} must be an integer >= ${min} (got '${v}')`, 'E_INVALID');
  return n;
}

/** Egress queue outputs: `pcap:<path>` or `*.pcap` is a capture file, anything else an interface. */
function egressOutput(v: string, rotateMb: number): EgressOutput {
  const file = v.startsWith('pcap:') ? v.slice(5) : /\.pcap$/i.test(v) ? v : null;
  return file ? { pcap: file, rotateBytes: rotateMb * 1024 * 1024 } : { iface: v };
}

function egressConfig(agg: string[] | undefined, bal: string[] | undefined, bridge: string | undefined, rotateMb = 1024): EgressConfig | undefined {
  if (!agg?.length && !bal?.length && !bridge) return undefined;
  const cfg: EgressConfig = {};
  if (agg?.length) cfg.aggregated = agg.map((v) => egressOutput(v, rotateMb));
  if (bal?.length) cfg.balanced = bal.flatMap((v) => v.split(',')).filter(Boolean).map((v) => egressOutput(v, rotateMb));
  if (bridge) {
    const [a, b, extra] = bridge.split(',').map((x) => x.trim());
    if (!a || !b || extra !== undefined) throw new FlowgateError(`--bridge wants two interfaces: <ifA>,<ifB> (got '${bridge}')`, 'E_INVALID');
    cfg.bridge = [a, b];
  }
  return cfg;
}

export async function run(argv: string[]): Promise<number> {
  // `flowgate passwd <user>`: the egress API password tool (loads its own store clients)
  if (argv[0] === 'passwd') return (await import('./passwd.js')).passwdMain(argv.slice(1));
  // A write LMDB could not commit (a full disk) also rejects a promise of
  // lmdb's own that nobody can await: the service logs it (config-store.ts
  // logs the reason) and goes on serving; any other unhandled rejection still
  // ends the process.
  process.on('unhandledRejection', (e) => {
    if (isCommitError(e)) return;
    throw e;
  });
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        interface: { type: 'string', short: 'i', multiple: true },
        'local-networks': { type: 'string', short: 'm' },
        protocols: { type: 'string', short: 'p' },
        'max-flows': { type: 'string' },
        'max-hosts': { type: 'string' },
        'flow-info-share': { type: 'string' },
        'flow-meta-share': { type: 'string' },
        'l7-entries-per-host': { type: 'string' },
        'host-side-share': { type: 'string' },
        workers: { type: 'string' },
        'flow-idle': { type: 'string' },
        'flow-lifetime': { type: 'string' },
        'replay-speed': { type: 'string' },
        loop: { type: 'boolean' },
        bpf: { type: 'string' },
        snaplen: { type: 'string' },
        'no-promisc': { type: 'boolean' },
        'ring-mb': { type: 'string' },
        'exit-when-done': { type: 'boolean' },
        record: { type: 'boolean' },
        'record-dir': { type: 'string' },
        'record-max-gb': { type: 'string' },
        'http-port': { type: 'string' },
        bind: { type: 'string' },
        'data-dir': { type: 'string' },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        'admin-password': { type: 'string' },
        clickhouse: { type: 'string' },
        'clickhouse-user': { type: 'string' },
        'clickhouse-password': { type: 'string' },
        'history-retention-days': { type: 'string' },
        'history-max-gb': { type: 'string' },
        'geoip-dir': { type: 'string' },
        'egress-port': { type: 'string' },
        kv: { type: 'string' },
        'kv-product': { type: 'string' },
        'egress-rules': { type: 'string' },
        'aggregated-egress': { type: 'string', multiple: true },
        'balanced-egress': { type: 'string', multiple: true },
        bridge: { type: 'string' },
        'edge-lan': { type: 'string', multiple: true },
        'edge-wan': { type: 'string', multiple: true },
        'egress-rotate-mb': { type: 'string' },
        'log-level': { type: 'string' },
        'metrics-open-loopback': { type: 'boolean' },
        'ts-retention-days': { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
    });
  } catch (e) {
    console.error(`flowgate: ${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const o = args.values;
  if (o.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (o.version) {
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8'));
    console.log(`flowgate ${pkg.version} (${Engine.info().libpcap})`);
    return 0;
  }

  let specs: InterfaceSpec[];
  let egressCfg: EgressConfig | undefined;
  try {
    egressCfg = egressConfig(o['aggregated-egress'], o['balanced-egress'], o.bridge, num(o['egress-rotate-mb'], 'egress-rotate-mb'));
  } catch (e) {
    console.error(`flowgate: ${(e as Error).message}`);
    return 2;
  }
  if (egressCfg?.bridge) {
    if (o.interface?.length) {
      console.error('flowgate: --bridge captures on its two interfaces: give no -i');
      return 2;
    }
    specs = [{ source: `bridge:${egressCfg.bridge.join(',')}`, egress: egressCfg }];
  } else if (!o.interface?.length && o['edge-lan']?.length) {
    // a gateway monitors its LANs unless told otherwise
    specs = o['edge-lan'].map((source) => ({ source }));
  } else if (o.interface?.length) {
    specs = o.interface.map((source) => ({ source, loop: o.loop ?? false }));
    // a name that reads as a path but names no file is a missing file, not an unknown interface
    for (const { source } of specs) {
      if (!isCaptureFile(source) && !existsSync(`/sys/class/net/${source}`) && /[/\\]|\.(pcap|pcapng|cap|dmp)$/i.test(source)) {
        console.error(`flowgate: -i ${source}: no such file`);
        return 1;
      }
    }
    // the egress queues are fed by the first interface (ifid 0)
    if (egressCfg) specs[0].egress = egressCfg;
  } else {
    if (!existsSync(BUNDLED_CAPTURE)) {
      console.error(`flowgate: no -i given and the bundled capture ${BUNDLED_CAPTURE} is missing`);
      return 1;
    }
    specs = [{ source: BUNDLED_CAPTURE, loop: true }];
    // Like a live link: original timing unless asked otherwise.
    o['replay-speed'] ??= '1';
    console.log(`flowgate: no interface given, replaying the bundled capture ${BUNDLED_CAPTURE} in a loop at original speed`);
  }

  let ifaces: Interfaces;
  try {
    const recordGb = num(o['record-max-gb'], 'record-max-gb', 0.01);
    const record =
      o.record || o['record-dir'] !== undefined || recordGb !== undefined
        ? { dir: resolve(o['record-dir'] ?? join(o['data-dir'] ?? 'data', 'recordings')), maxBytes: Math.floor((recordGb ?? 1) * 2 ** 30) }
        : undefined;
    ifaces = new Interfaces(specs, {
      record,
      localNetworks: o['local-networks']?.split(',').map((s) => s.trim()).filter(Boolean),
      maxFlows: num(o['max-flows'], 'max-flows', 1),
      maxHosts: num(o['max-hosts'], 'max-hosts', 2),
      flowInfoShare: num(o['flow-info-share'], 'flow-info-share'),
      flowMetaShare: num(o['flow-meta-share'], 'flow-meta-share'),
      l7EntriesPerHost: num(o['l7-entries-per-host'], 'l7-entries-per-host'),
      hostSideShare: num(o['host-side-share'], 'host-side-share'),
      workers: int(o.workers, 'workers', 1),
      flowIdleSec: num(o['flow-idle'], 'flow-idle'),
      flowLifetimeSec: num(o['flow-lifetime'], 'flow-lifetime'),
      replaySpeed: num(o['replay-speed'], 'replay-speed'),
      bpf: o.bpf,
      snaplen: num(o.snaplen, 'snaplen', 64),
      promisc: !o['no-promisc'],
      ringMb: num(o['ring-mb'], 'ring-mb', 1),
    });
  } catch (e) {
    console.error(`flowgate: ${(e as Error).message}`);
    return 1;
  }

  for (const i of ifaces.list) {
    console.log(`flowgate: ifid ${i.ifid}: ${i.isFile ? 'replaying' : 'capturing on'} ${i.ifname}${i.recordDir ? `, recording into ${i.recordDir}` : ''}`);
  }
  // The sampler listens before the engines start: a replay's first minutes are not missed.
  let timeseries: Timeseries | undefined;
  try {
    const retention = o['ts-retention-days'] !== undefined ? parseRetention(o['ts-retention-days']) : undefined;
    if ((num(o['http-port'], 'http-port') ?? 3000) > 0) timeseries = new Timeseries({ retention }).attach(ifaces.list);
  } catch (e) {
    console.error(`flowgate: ${(e as Error).message}`);
    ifaces.close();
    return 2;
  }
  // Geolocation before the store: the flows written carry their hosts'
  // countries and ASes. Loaded once here (about a second, off the request
  // path); an operator's directory that cannot be read is an error, the
  // shipped databases missing only one line.
  let geo: Geo | null = null;
  try {
    geo = await Geo.open(geoFiles(o['geoip-dir']));
    console.log(`flowgate: geolocation: ${geo.description} (${Math.round(geo.bytes / 2 ** 20)} MB, ${Math.round(geo.loadMs)} ms)`);
  } catch (e) {
    console.error(`flowgate: geolocation unavailable: ${(e as Error).message}`);
    if (o['geoip-dir'] !== undefined) {
      ifaces.close();
      return 2;
    }
  }
  timeseries?.setGeo(geo);
  // The historical store first: the engines' expired flows go to its writer
  // from the first packet. A store that cannot open is one line, not a failure.
  let history: History | null;
  try {
    history = await startHistory({
      writer: { geo },
      dataDir: o['data-dir'] ?? 'data',
      clickhouse: o.clickhouse ? { url: o.clickhouse, user: o['clickhouse-user'], password: o['clickhouse-password'], timeoutMs: 10_000 } : null,
      retentionDays: num(o['history-retention-days'], 'history-retention-days'),
      maxGb: num(o['history-max-gb'], 'history-max-gb'),
    });
  } catch (e) {
    console.error(`flowgate: ${(e as Error).message}`);
    ifaces.close();
    return 2;
  }
  // The checks before the engines start: the flows written from the first
  // packet raise only the alerts of enabled checks, and the host checks see
  // the first minute's tick.
  const dataDir = o['data-dir'] ?? 'data';
  let store: ConfigStore;
  let checking: Checking;
  try {
    store = new ConfigStore(resolve(dataDir));
  } catch (e) {
    console.error(`flowgate: cannot open the configuration in ${resolve(dataDir)}: ${(e as Error).message}`);
    ifaces.close();
    await history?.close();
    return 2;
  }
  try {
    checking = await startChecking(ifaces.list, { store, history, customApps: { file: o.protocols ? resolve(o.protocols) : undefined } });
  } catch (e) {
    console.error(`flowgate: cannot start the checks: ${(e as Error).message}`);
    ifaces.close();
    await history?.close();
    await store.close();
    return 2;
  }
  // the alert and export counters the sampler writes beside the engine's
  timeseries?.setCounters(interfaceCounters(checking.alerts, history?.writer ?? null));
  if (o.protocols) {
    const c = checking.customApps;
    const skipped = c.fileIssues.length ? ` (${c.fileIssues.length} left out, see above)` : '';
    console.log(`flowgate: custom protocols: ${c.applications().length} from ${resolve(o.protocols)}${skipped}`);
  }
  // the alerts still queued are written before the historical store closes
  const closeConfig = async () => {
    await checking.close();
    await history?.close();
    await store.close();
  };
  // the egress policies (rules file, then those the API stored) are in the engine before its first packet
  let egressPolicies: EgressPolicies | null = null;
  if (egressCfg) {
    try {
      egressPolicies = startEgressPolicies({
        store,
        rulesFile: o['egress-rules'],
        layout: { aggregated: egressCfg.aggregated?.length ?? 0, balanced: egressCfg.balanced?.length ?? 0, bridge: !!egressCfg.bridge },
        engine: ifaces.get(0)!.engine,
      });
    } catch (e) {
      console.error(`flowgate: egress: ${(e as Error).message}`);
      ifaces.close();
      await closeConfig();
      return 1;
    }
  }
  // A stop asked for while the APIs start (they answer before their start
  // returns) is held and carried out once they run: the default action of
  // SIGTERM would end the process without closing the store.
  let signalled: string | null = null;
  let onSignal: (sig: string) => void = (sig) => {
    signalled = sig;
  };
  process.once('SIGINT', () => onSignal('SIGINT'));
  process.once('SIGTERM', () => onSignal('SIGTERM'));
  const started = performance.now();
  ifaces.start(history?.writer);

  let api: MonitoringApi | null = null;
  try {
    const level = o['log-level'] ?? 'info';
    if (!['error', 'warn', 'info', 'debug'].includes(level)) throw new FlowgateError(`--log-level must be error, warn, info or debug`, 'E_INVALID');
    const port = num(o['http-port'], 'http-port') ?? 3000;
    if (port > 0) {
      api = await startMonitoringApi(ifaces, {
        port,
        bind: o.bind,
        dataDir: o['data-dir'] ?? 'data',
        tlsCert: o['tls-cert'],
        tlsKey: o['tls-key'],
        adminPassword: o['admin-password'] ?? process.env.FLOWGATE_ADMIN_PASSWORD,
        debug: level === 'debug',
        metricsOpenLoopback: o['metrics-open-loopback'] ?? false,
        timeseries,
        history,
        store,
        checking,
        geo,
        edge: o['edge-lan']?.length || o['edge-wan']?.length ? { lan: o['edge-lan'] ?? [], wan: o['edge-wan'] ?? [] } : undefined,
      });
    }
  } catch (e) {
    console.error(`flowgate: cannot start the monitoring API: ${(e as Error).message}`);
    ifaces.close();
    await closeConfig();
    return 1;
  }

  let egress: EgressApi | null = null;
  try {
    const port = num(o['egress-port'], 'egress-port') ?? 8880;
    if (port > 0) {
      if (!api) throw new FlowgateError('the egress API keeps its policies in the configuration store: it needs the monitoring API (--http-port > 0)', 'E_INVALID');
      egress = await startEgressApi({
        port,
        bind: o.bind,
        tlsCert: o['tls-cert'],
        tlsKey: o['tls-key'],
        store,
        dataDir: o['data-dir'] ?? 'data',
        kvUrl: o.kv,
        product: o['kv-product'] ?? 'cento',
        rulesFile: o['egress-rules'],
        layout: {
          aggregated: egressCfg?.aggregated?.length ?? 0,
          balanced: egressCfg?.balanced?.length ?? 0,
          bridge: !!egressCfg?.bridge,
        },
        engine: egressCfg ? ifaces.get(0)!.engine : null,
        policies: egressPolicies ?? undefined,
      });
    }
  } catch (e) {
    console.error(`flowgate: cannot start the egress API: ${(e as Error).message}`);
    await api?.close();
    ifaces.close();
    await closeConfig();
    return 1;
  }

  const reporter = new Reporter(ifaces, { tty: !o.quiet && !!process.stdout.isTTY });
  let stopping = false;
  // a capture file that could not be read to its end makes the exit status 1
  let damaged = false;
  const finished = new Promise<void>((resolve) => {
    const stop = (sig: string) => {
      if (stopping) return;
      stopping = true;
      reporter.stop();
      console.log(`flowgate: ${sig}, stopping`);
      resolve();
    };
    onSignal = stop;
    if (signalled) stop(signalled);
    // Files that end are summarised once; live interfaces run until a signal.
    const files = ifaces.list.filter((i) => i.isFile);
    let replayed = 0;
    for (const i of files) {
      i.engine.waitDone().then((st) => {
        reporter.clearLine();
        const s = i.engine.stats();
        const wall = (performance.now() - started) / 1000;
        console.log(
          `flowgate: ifid ${i.ifid}: replayed ${i.ifname}: ${s.packets} packets, ${s.bytes} bytes, ` +
            `${s.flows_created} flows, ${s.hosts_created} hosts, ${s.malformed} malformed ` +
            `(${formatRate(s.packets / wall, 'pps')} in ${wall.toFixed(2)} s)`,
        );
        if (st.error) {
          damaged = true;
          console.error(`flowgate: ifid ${i.ifid}: ${st.error}`);
        }
        if (++replayed === ifaces.list.length && o['exit-when-done']) stop('done');
      });
    }
  });
  reporter.start();
  await finished;
  await egress?.close();
  egressPolicies?.close();
  await api?.close();
  ifaces.close();
  // after the engines stopped: the flows still active are ended and written
  // (as ntopng dumps its flows when it stops), the alerts queued too
  await closeConfig();
  return damaged || ifaces.list.some((i) => i.engine.state().state === 'failed') ? 1 : 0;
}
