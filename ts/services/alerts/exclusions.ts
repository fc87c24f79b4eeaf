// ⑧ Alert exclusions (ntopng's alert_exclusions.lua): alerts an operator
// does not want raised for a subject: a host (IP or CIDR, optional @vlan:
// its flow alerts as client or server, its host alerts), a domain (flow
// alerts of flows whose server name or info is it or a subdomain), a
// certificate (kept and listed as ntopng does; the flows rows carry no
// certificate to match it against). Kept in the configuration store (named
// db 'alert_exclusions', the export's layout {<subject>: {type,
// flow_alerts, host_alerts}}) so they survive restarts; listeners hear every
// change once stored, so the host checks and the flow writer apply it at once.
import type { Database } from 'lmdb';

import { ApiError, RC } from '../../api/rc.js';
import { normalizeCidr } from '../cidr.js';
import type { ConfigStore } from '../config-store.js';
import { BY_ALERT_ID } from './catalogue.js';
import { ALL_ALERT_KEY, ExclusionMatcher, type ExclusionRecord, type ExclusionSubject, type SubjectType } from './exclusion-table.js';
import { alertKeyInfo } from './families.js';

export type ExclusionSubdir = 'flow' | 'host';

const RECORD = 'exclusions';
/** subjects kept at most (each a hash entry on the decoder's thread) */
export const MAX_SUBJECTS = 4096;
const DOMAIN_RE = /^(?=.{1,253}$)[a-z0-9_*-]+(\.[a-z0-9_-]+)*\.?$/;
const bad = (what: string): never => {
  throw new ApiError(RC.INVALID_ARGUMENTS, what);
};

/** The checked subject of a request: its key (as stored) and type. */
export interface Subject {
  type: SubjectType;
  key: string;
}

/**
 * A host subject as ntopng writes it: 'ip' or 'ip@vlan' (vlan 0 dropped),
 * the address in its canonical form, a network as its network address/len.
 */
export function hostSubjectKey(alertAddr: string): string {
  const text = alertAddr.trim();
  if (!text || text.length > 64) bad(`alert_addr '${text.slice(0, 64)}' is not an IP address or network (optionally @vlan)`);
  const at = text.lastIndexOf('@');
  if (at >= 0 && !/^\d{1,4}$/.test(text.slice(at + 1))) bad(`alert_addr: bad VLAN '${text.slice(at + 1, at + 10)}'`);
  const vlan = at < 0 ? 0 : Number(text.slice(at + 1));
  if (vlan > 4095) bad(`alert_addr: VLAN ${vlan} is out of 0..4095`);
  const addr = at < 0 ? text : text.slice(0, at);
  // node's strict parser (no octal, no short forms), networks to their network address
  const cidr = normalizeCidr(addr);
  if (!cidr) bad(`alert_addr '${text.slice(0, 64)}' is not an IP address or network (optionally @vlan)`);
  const [net, len] = cidr!.split('/');
  const key = addr.includes('/') && Number(len) !== (net.includes(':') ? 128 : 32) ? cidr! : net;
  return vlan ? `${key}@${vlan}` : key;
}

function domainKey(d: string): string {
  const s = d.trim().toLowerCase();
  if (!DOMAIN_RE.test(s)) bad(`alert_domain '${s.slice(0, 64)}' is not a domain name`);
  return s.replace(/\.$/, '');
}

function certificateKey(c: string): string {
  const s = c.trim();
  if (!s || s.length > 1024 || /[\u0000-\u001f\u007f]/.test(s)) bad('alert_certificate must be 1..1024 printable characters');
  return s;
}

/** A flow or host alert key (its id; 0 = all), checked against ntopng's alert keys. */
export function alertKeyOf(subdir: ExclusionSubdir, v: string | number | undefined): number {
  const name = subdir === 'flow' ? 'flow_alert_key' : 'host_alert_key';
  const t = v === undefined ? '' : String(v).trim();
  if (!/^\d{1,5}$/.test(t)) bad(`${name} must be an alert id (0: every alert)`);
  const id = Number(t);
  if (id === ALL_ALERT_KEY) return id;
  const known = subdir === 'flow' ? BY_ALERT_ID.has(id) : alertKeyInfo('host', id) !== undefined;
  if (!known) bad(`${name} ${id} is not a ${subdir} alert id`);
  return id;
}

export interface ExclusionRequest {
  type?: string;
  alert_addr?: string;
  alert_domain?: string;
  alert_certificate?: string;
  subdir?: string;
  flow_alert_key?: string;
  host_alert_key?: string;
}

/** The subject, subdir and alert id a request names (add/delete/alert/exclusion.lua). */
export function parseRequest(p: ExclusionRequest): { subject: Subject; subdir: ExclusionSubdir; alertId: number } {
  const type = p.type ?? 'host';
  if (type === 'host') {
    if (!p.alert_addr) bad('type host needs alert_addr (an IP address or network, optionally @vlan)');
    const sd = p.subdir ?? (p.host_alert_key !== undefined && p.flow_alert_key === undefined ? 'host' : 'flow');
    if (sd !== 'flow' && sd !== 'host') bad(`subdir '${String(sd).slice(0, 32)}' is not flow or host`);
    const subdir = sd as ExclusionSubdir;
    const key = hostSubjectKey(p.alert_addr!);
    return { subject: { type, key }, subdir, alertId: alertKeyOf(subdir, subdir === 'flow' ? p.flow_alert_key : p.host_alert_key) };
  }
  if (type === 'domain' || type === 'certificate') {
    // domains and certificates only exclude flow alerts (alert_exclusions.lua)
    if (p.subdir !== undefined && p.subdir !== 'flow') bad(`a ${type} excludes flow alerts only (subdir flow)`);
    const text = type === 'domain' ? p.alert_domain : p.alert_certificate;
    if (!text) bad(`type ${type} needs alert_${type}`);
    const key = type === 'domain' ? domainKey(text!) : certificateKey(text!);
    return { subject: { type, key }, subdir: 'flow', alertId: alertKeyOf('flow', p.flow_alert_key) };
  }
  return bad(`type '${String(type).slice(0, 32)}' is not host, domain or certificate`);
}

const clone = <T>(v: T): T => structuredClone(v);

export class AlertExclusions {
  private stored: ExclusionRecord;
  private current: ExclusionMatcher;
  private readonly listeners = new Set<(rec: ExclusionRecord) => void>();
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Database<ExclusionRecord, string>) {
    const v = db.get(RECORD);
    this.stored = v && typeof v === 'object' ? v : {};
    this.current = new ExclusionMatcher(this.stored);
  }

  static open(store: ConfigStore): AlertExclusions {
    return new AlertExclusions(store.db<ExclusionRecord>('alert_exclusions'));
  }

  /** Called with the new record after every change is stored; returns the unsubscribe function. */
  onChange(listener: (rec: ExclusionRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every subject (alert_exclusions.export). */
  record(): ExclusionRecord {
    return clone(this.stored);
  }

  /** the lookups of the current exclusions (host checks ask it every tick) */
  get matcher(): ExclusionMatcher {
    return this.current;
  }

  /** A host alert of this host is excluded now. */
  hostAlertExcluded(ip: string, vlan: number, alertId: number): boolean {
    return this.current.hostExcluded(ip, vlan, alertId);
  }

  /** Subjects of a type with their excluded alerts. */
  list(type: SubjectType): { key: string; subject: ExclusionSubject }[] {
    return Object.entries(this.stored)
      .filter(([, s]) => (s.type ?? 'host') === type)
      .map(([key, s]) => ({ key, subject: clone(s) }))
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  /** The alerts excluded for one subject in one subdir. */
  of(key: string, subdir: ExclusionSubdir): number[] {
    const s = this.stored[key];
    return s ? [...(subdir === 'flow' ? s.flow_alerts : s.host_alerts)] : [];
  }

  /** add/alert/exclusion.lua: true when it was not excluded yet. */
  add(subject: Subject, subdir: ExclusionSubdir, alertId: number): Promise<boolean> {
    return this.write((rec) => {
      let s = rec[subject.key];
      if (!s) {
        if (Object.keys(rec).length >= MAX_SUBJECTS) throw new ApiError(RC.INVALID_ARGUMENTS, `at most ${MAX_SUBJECTS} excluded subjects`);
        s = rec[subject.key] = { type: subject.type, flow_alerts: [], host_alerts: [] };
      }
      const l = subdir === 'flow' ? s.flow_alerts : s.host_alerts;
      if (l.includes(alertId)) return false;
      l.push(alertId);
      l.sort((a, b) => a - b);
      return true;
    });
  }

  /** delete/alert/exclusion.lua: true when it was excluded; a subject left with nothing is removed. */
  remove(key: string, subdir: ExclusionSubdir, alertId: number): Promise<boolean> {
    return this.write((rec) => {
      const s = rec[key];
      if (!s) return false;
      const l = subdir === 'flow' ? s.flow_alerts : s.host_alerts;
      const i = l.indexOf(alertId);
      if (i < 0) return false;
      l.splice(i, 1);
      if (!s.flow_alerts.length && !s.host_alerts.length) delete rec[key];
      return true;
    });
  }

  /**
   * delete/all/alert/exclusions.lua: every exclusion of one subdir (flow or
   * host) of host subjects, or only of `host`; type domain / certificate:
   * every such subject. Returns how many alert exclusions went.
   */
  removeAll(kind: 'flow' | 'host' | 'domain' | 'certificate', host?: string): Promise<number> {
    return this.write((rec) => {
      let n = 0;
      for (const [key, s] of Object.entries(rec)) {
        const type = s.type ?? 'host';
        if (kind === 'domain' || kind === 'certificate') {
          if (type !== kind) continue;
          n += s.flow_alerts.length;
          delete rec[key];
          continue;
        }
        if (type !== 'host' || (host !== undefined && key !== host)) continue;
        const l = kind === 'flow' ? s.flow_alerts : s.host_alerts;
        n += l.length;
        l.length = 0;
        if (!s.flow_alerts.length && !s.host_alerts.length) delete rec[key];
      }
      return n;
    });
  }

  private write<T>(change: (rec: ExclusionRecord) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const next = clone(this.stored);
      const r = change(next);
      await this.db.put(RECORD, next);
      this.stored = next;
      this.current = new ExclusionMatcher(next);
      for (const l of this.listeners) {
        try {
          l(clone(next));
        } catch (e) {
          console.error(`flowgate: alert exclusions: a change listener failed: ${(e as Error).message}`);
        }
      }
      return r;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
