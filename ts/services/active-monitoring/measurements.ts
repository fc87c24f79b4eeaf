// ⑧ Active monitoring's measurements (ntopng 5.x scripts/lua/modules/
// measurements/*.lua): what each measures, its unit, how a value compares
// with the threshold, the granularities it allows, and which hosts it takes.
// ntopng 5.x has `icmp` (IPv4 or IPv6 by the address) and `http` (any
// http:// or https:// URL, its label "HTTP(S)"); `icmp6` and `https` are the
// keys of older ntopng (kept so their exports import), `tcp` is flowgate's.
import { isIP } from 'node:net';

export type MeasurementKey = 'icmp' | 'icmp6' | 'http' | 'https' | 'tcp';
export type Granularity = 'min' | '5mins' | 'hour';

/** am_utils supported_granularities, in their order */
export const GRANULARITIES: readonly Granularity[] = ['min', '5mins', 'hour'];
/** how many base periods (a minute) each granularity spans */
export const GRANULARITY_PERIODS: Record<Granularity, number> = { min: 1, '5mins': 5, hour: 60 };
/** the timeseries step of each granularity (am_host:val_<granularity>) */
export const GRANULARITY_STEP: Record<Granularity, number> = { min: 60, '5mins': 300, hour: 3600 };

export interface MeasurementInfo {
  key: MeasurementKey;
  /** what the list shows (ntopng's i18n of i18n_label) */
  label: string;
  /** ntopng's i18n_unit key (what the alert's json carries) and its text */
  i18nUnit: string;
  unit: string;
  /** the value is bad when it is above (gt) or below (lt) the threshold */
  operator: 'gt' | 'lt';
  granularities: readonly Granularity[];
  maxThreshold: number;
  /** ntopng's value_js_formatter */
  valueJsFormatter: string;
  /** an answer later than this is no answer (unreachable) */
  timeoutMs: number;
}

const ms = { i18nUnit: 'active_monitoring_stats.msec', unit: 'ms', operator: 'gt' as const, granularities: GRANULARITIES, maxThreshold: 10000, valueJsFormatter: 'NtopUtils.fmillis' };

export const MEASUREMENTS: Readonly<Record<MeasurementKey, MeasurementInfo>> = {
  // ntopng waits 3 s for the ICMP replies of a round (run_am_check's msleep)
  icmp: { key: 'icmp', label: 'ICMP', ...ms, timeoutMs: 3000 },
  icmp6: { key: 'icmp6', label: 'ICMPv6', ...ms, timeoutMs: 3000 },
  // ntopng's curl timeout for the http measurement: 10 s
  http: { key: 'http', label: 'HTTP(S)', ...ms, timeoutMs: 10000 },
  https: { key: 'https', label: 'HTTPS', ...ms, timeoutMs: 10000 },
  tcp: { key: 'tcp', label: 'TCP', ...ms, timeoutMs: 3000 },
};

export const isMeasurement = (m: string): m is MeasurementKey => Object.prototype.hasOwnProperty.call(MEASUREMENTS, m);
export const isGranularity = (g: string): g is Granularity => (GRANULARITIES as readonly string[]).includes(g);

/** ntopng's host key: '<measurement>@<host>' */
export const hostKey = (host: string, measurement: string) => `${measurement}@${host}`;

/** am_utils key2amhost: the measurement is what precedes the first '@' */
export function splitKey(key: string): { host: string; measurement: string } | null {
  const m = /^([^@]+)@(.+)$/s.exec(key);
  return m ? { measurement: m[1], host: m[2] } : null;
}

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?$/;

export const isHostName = (h: string) => HOSTNAME.test(h);

/** What a probe connects to, taken from the configured host. */
export interface Target {
  /** a name to resolve or an address (brackets removed) */
  name: string;
  /** tcp: the port; http(s): the URL */
  port?: number;
  url?: URL;
}

/**
 * The target of a host for a measurement, or an error text. icmp: a name or
 * an address; tcp: host:port ([v6]:port); http: a URL (a bare host gets
 * http://, https:// for `https`).
 */
export function parseTarget(measurement: MeasurementKey, host: string): Target | string {
  if (host.length > 1000 || /[\s\0]/.test(host)) return 'the host holds spaces or is longer than 1000 characters';
  switch (measurement) {
    case 'icmp':
    case 'icmp6': {
      const h = host.replace(/^\[(.*)\]$/, '$1');
      if (measurement === 'icmp6' && isIP(h) === 4) return `'${host}' is an IPv4 address (icmp6 pings IPv6 only)`;
      if (isIP(h) || isHostName(h)) return { name: h };
      return `'${host}' is neither an IP address nor a host name`;
    }
    case 'tcp': {
      const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]]+)):(\d{1,5})$/.exec(host);
      const port = m ? Number(m[3]) : 0;
      const name = m ? (m[1] ?? m[2]) : '';
      if (!m || port < 1 || port > 65535 || !(isIP(name) || isHostName(name))) return `'${host}' is not host:port (IPv6: [address]:port)`;
      return { name, port };
    }
    case 'http':
    case 'https': {
      const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `${measurement}://${host}`;
      let url: URL;
      try {
        url = new URL(text);
      } catch {
        return `'${host}' is not a URL`;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return `'${host}': only http:// and https:// URLs are measured`;
      const name = url.hostname.replace(/^\[(.*)\]$/, '$1');
      if (!(isIP(name) || isHostName(name))) return `'${host}' has no valid host name`;
      return { name, url };
    }
  }
}
