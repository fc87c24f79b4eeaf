// ⑧ Alert notifications: endpoints and recipients configured (ntopng 5.x
// endpoints.lua / recipients.lua, answers in their forms) and every alert
// delivered to the recipients bound to its entity's pool whose filters it
// passes (pools_alert_utils.get_entity_recipients_by_pool_id: category in
// the recipient's list, severity not below its minimum).
//
// Delivery is off the caller's path: an alert is put on each recipient's
// own bounded queue (a full one drops and counts, as RecipientQueues does)
// and each recipient drains its queue in its own async loop, in batches,
// with retries and backoff: a dead endpoint only ever delays itself.
import { alertKeyText, type AlertFamily, type AlertInput, type AlertKey, type AlertSink, type EngagedAlert } from '../alerts/types.js';
import type { ConfigStore } from '../config-store.js';
import type { FlowAlertNote } from '../store/flow-batch.js';
import { DEFAULT_POOL_ID, FAMILY_POOL_KIND, POOL_KINDS, type PoolDirectory } from '../pools/types.js';
import { checkName, Endpoints, ENDPOINT_TYPES, failed, isEndpointType, pickParams, type EndpointRecord, type Failed, type Params } from './endpoints.js';
import { alertCategory, buildNotification, flowNotification, testNotification, type Notification, type NotificationAction, type PlainOptions } from './notification.js';
import {
  ALL_CATEGORIES,
  BUILTIN_ENDPOINT_NAME,
  BUILTIN_RECIPIENT_NAME,
  DEFAULT_MIN_SEVERITY,
  MAX_RECIPIENTS,
  parseCategories,
  parseMinimumSeverity,
  Recipients,
  type RecipientRecord,
} from './recipients.js';
import { alertMail, EMAIL_BATCH, sendMail } from './senders/email.js';
import { sendSyslog } from './senders/syslog.js';
import { postWebhook, WEBHOOK_BATCH } from './senders/webhook.js';
import { luaTable } from '../lua-table.js';

export { Endpoints, ENDPOINT_TYPES } from './endpoints.js';
export { Recipients, MAX_RECIPIENTS } from './recipients.js';
export type { Notification } from './notification.js';

export interface NotificationsOptions {
  /** notifications waiting per recipient (default 1024); more are dropped and counted */
  queueSize?: number;
  /** how long the first notification of a batch waits for others (default 100 ms) */
  batchMs?: number;
  /** attempts per batch (default 3, as webhook.lua) */
  attempts?: number;
  /** wait before the 2nd attempt, doubled for each next one and after a batch given up (default 500 ms, at most 30 s) */
  backoffMs?: number;
  /** one attempt's bound for webhook and syslog (default 3000 ms) */
  timeoutMs?: number;
  /** one SMTP exchange's bound (default 10000 ms) */
  emailTimeoutMs?: number;
  /** engaged alerts remembered to tell a new engagement from a refresh and to notify its release (default 65536) */
  maxTracked?: number;
  /** an interface's name (plain-text messages) */
  ifname?: (ifid: number) => string;
  log?: (line: string) => void;
}

/** ntop.recipient_stats (RecipientQueues::lua) and what delivery adds. */
export interface RecipientStats {
  /** epoch s of the last delivery (ntopng: last dequeue) */
  last_use: number;
  /** notifications lost: queue full, delivery given up, type not delivered here */
  num_drops: number;
  /** notifications taken (enqueued) */
  num_uses: number;
  /** queue fill, % */
  fill_pct: number;
  /** notifications delivered */
  num_sent: number;
  /** notifications whose delivery failed after every attempt (also in num_drops) */
  num_failed: number;
  /** waiting now */
  num_queued: number;
  /** the last delivery error ('' none) */
  last_error: string;
}

interface Queue {
  id: number;
  items: Notification[];
  stats: Omit<RecipientStats, 'fill_pct' | 'num_queued'>;
  /** the drain loop, while it runs */
  running: Promise<void> | null;
  /** batches given up in a row */
  failStreak: number;
  removed: boolean;
}

/** An operation's answer in ntopng's form: {status: "OK", …} or {status: "failed", error: {type, …}} */
export type Result = ({ status: 'OK' } & Record<string, unknown>) | Failed;

const nowSec = () => Math.floor(Date.now() / 1000);
const toId = (v: unknown): number | undefined => {
  const s = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : '';
  return /^\d{1,9}$/.test(s) ? Number(s) : undefined;
};

export class Notifications implements AlertSink {
  private pools: PoolDirectory | null = null;
  /** recipients added with bind_to_all_pools before pools were set */
  private readonly pendingBinds = new Set<number>();
  private readonly tracked = new Map<string, { a: AlertInput; begin: number }>();
  private readonly queues = new Map<number, Queue>();
  private readonly sleepers = new Set<() => void>();
  private lock: Promise<unknown> = Promise.resolve();
  private closing = false;
  private deadline = Infinity;
  private totalDropped = 0;
  private readonly queueSize: number;
  private readonly batchMs: number;
  private readonly attempts: number;
  private readonly backoffMs: number;
  private readonly timeoutMs: number;
  private readonly emailTimeoutMs: number;
  private readonly maxTracked: number;
  private readonly plain: PlainOptions;
  private readonly log: (line: string) => void;

  private constructor(
    readonly endpoints: Endpoints,
    readonly recipients: Recipients,
    o: NotificationsOptions,
  ) {
    this.queueSize = o.queueSize ?? 1024;
    this.batchMs = o.batchMs ?? 100;
    this.attempts = Math.max(1, o.attempts ?? 3);
    this.backoffMs = o.backoffMs ?? 500;
    this.timeoutMs = o.timeoutMs ?? 3000;
    this.emailTimeoutMs = o.emailTimeoutMs ?? 10000;
    this.maxTracked = o.maxTracked ?? 65536;
    const ifname = o.ifname ?? ((i: number) => `ifid ${i}`);
    this.plain = { iso: true, ifname };
    this.log = o.log ?? ((l) => console.error(l));
  }

  /** Opens the configuration; the builtin endpoint and recipient exist from the first start (recipients.initialize). */
  static async open(store: ConfigStore, o: NotificationsOptions = {}): Promise<Notifications> {
    const endpoints = Endpoints.open(store);
    const recipients = Recipients.open(store, (id) => !!endpoints.get(id)?.builtin);
    const n = new Notifications(endpoints, recipients, o);
    await n.initialize(false);
    return n;
  }

  /** The pools (they need the builtin recipients first); until set, every alert goes to the builtin recipients' filters. */
  setPools(p: PoolDirectory | null): void {
    this.pools = p;
    if (p && this.pendingBinds.size) {
      const ids = [...this.pendingBinds].filter((id) => this.recipients.exists(id));
      this.pendingBinds.clear();
      for (const id of ids) p.bindRecipientEverywhere(id).catch((e: Error) => this.log(`flowgate: notifications: recipient ${id} not bound to the pools: ${e.message}`));
    }
  }

  /** Notifications dropped in total (every recipient, removed ones included). */
  get dropped(): number {
    return this.totalDropped;
  }

  // ── AlertSink ────────────────────────────────────────────────────────

  engage(a: AlertInput): void {
    const k = alertKeyText(a);
    const cur = this.tracked.get(k);
    if (cur) {
      // a refresh: the same engagement, its latest measure kept for the release
      cur.a = a;
      return;
    }
    if (this.tracked.size < this.maxTracked) this.tracked.set(k, { a, begin: a.tstamp });
    this.dispatch(a, 'engage', a.tstamp);
  }

  release(key: AlertKey, tstamp: number): void {
    const k = alertKeyText(key);
    const cur = this.tracked.get(k);
    if (!cur) return;
    this.tracked.delete(k);
    this.dispatch(cur.a, 'release', cur.begin, tstamp);
  }

  emit(a: AlertInput): void {
    this.dispatch(a, 'store', a.tstamp, a.tstamp);
  }

  /**
   * Flow alerts (the flow writer's: each flow's first alerted row, after
   * exclusions) to the flow pool's recipients, as ntopng's Flow::alert2JSON
   * (action store, entity flow, pool 0: flows have no pool). `dropped`: alerts
   * the writer left out of a storm, counted here.
   */
  flowAlerts(notes: readonly FlowAlertNote[], dropped = 0): void {
    this.totalDropped += dropped;
    if (this.closing || !notes.length) return;
    let ids: number[];
    try {
      ids = this.pools ? this.pools.recipientsOf('flow', DEFAULT_POOL_ID) : this.recipients.builtinIds();
    } catch (e) {
      this.log(`flowgate: notifications: no recipients for flow alerts: ${(e as Error).message}`);
      return;
    }
    const rs = ids.map((id) => this.recipients.get(id)).filter((r): r is RecipientRecord => !!r);
    if (!rs.length) return;
    for (const f of notes) {
      let n: Notification | undefined;
      for (const r of rs) {
        if (!r.check_categories.includes(f.alert_category) || f.severity < r.minimum_severity) continue;
        n ??= flowNotification(f);
        this.enqueue(r, n);
      }
    }
  }

  /** Whether a flow alert would reach anyone: a recipient of the flow pool whose endpoint delivers (the writer reports flow alerts only then). */
  wantsFlowAlerts(): boolean {
    if (this.closing) return false;
    const ids = this.pools ? this.pools.recipientsOf('flow', DEFAULT_POOL_ID) : this.recipients.builtinIds();
    for (const id of ids) {
      const r = this.recipients.get(id);
      const ep = r && this.endpoints.get(r.endpoint_id);
      if (ep && ep.endpoint_key !== 'alert_store_db') return true;
    }
    return false;
  }

  /** an engaged alert discarded (an exclusion): its next engagement is a new one */
  forget(key: AlertKey): void {
    this.tracked.delete(alertKeyText(key));
  }

  engaged(_family: AlertFamily, _ifid: number): EngagedAlert[] {
    return [];
  }

  /** Never throws into the alert's path: a failing pool lookup sends to nobody. */
  private dispatch(a: AlertInput, action: NotificationAction, begin: number, end?: number): void {
    if (this.closing) return;
    let ids: number[];
    let poolId = DEFAULT_POOL_ID;
    try {
      if (this.pools) {
        poolId = this.pools.poolOf(a.family, a.ifid, a.entityVal);
        ids = this.pools.recipientsOf(FAMILY_POOL_KIND[a.family], poolId);
      } else ids = this.recipients.builtinIds();
    } catch (e) {
      this.log(`flowgate: notifications: no recipients for a ${a.family} alert: ${(e as Error).message}`);
      return;
    }
    if (!ids.length) return;
    const category = alertCategory(a);
    let n: Notification | undefined;
    for (const id of ids) {
      const r = this.recipients.get(id);
      if (!r || !r.check_categories.includes(category) || a.severity < r.minimum_severity) continue;
      n ??= buildNotification(a, action, poolId, begin, end);
      this.enqueue(r, n);
    }
  }

  private queue(id: number): Queue {
    let q = this.queues.get(id);
    if (!q) {
      q = { id, items: [], stats: { last_use: 0, num_drops: 0, num_uses: 0, num_sent: 0, num_failed: 0, last_error: '' }, running: null, failStreak: 0, removed: false };
      this.queues.set(id, q);
    }
    return q;
  }

  private drop(q: Queue, n: number): void {
    q.stats.num_drops += n;
    this.totalDropped += n;
  }

  private enqueue(r: RecipientRecord, n: Notification): void {
    const ep = this.endpoints.get(r.endpoint_id);
    if (!ep) return;
    const q = this.queue(r.recipient_id);
    const type = ENDPOINT_TYPES[ep.endpoint_key];
    if (ep.endpoint_key === 'alert_store_db') {
      // the alert service stores alerts already: nothing more to send
      q.stats.num_uses++;
      q.stats.num_sent++;
      q.stats.last_use = nowSec();
      return;
    }
    if (!type.delivered) return this.drop(q, 1);
    if (q.items.length >= this.queueSize) return this.drop(q, 1);
    q.items.push(n);
    q.stats.num_uses++;
    if (!q.running) q.running = this.drain(q).finally(() => (q.running = null));
  }

  /** A wait that close() cuts short. */
  private sleep(ms: number): Promise<void> {
    if (this.closing || ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.sleepers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      t.unref();
      this.sleepers.add(wake);
    });
  }

  private async drain(q: Queue): Promise<void> {
    await this.sleep(this.batchMs);
    while (q.items.length && !q.removed) {
      if (this.closing && Date.now() > this.deadline) {
        this.drop(q, q.items.length);
        q.items = [];
        break;
      }
      const r = this.recipients.get(q.id);
      const ep = r && this.endpoints.get(r.endpoint_id);
      if (!r || !ep) {
        this.drop(q, q.items.length);
        q.items = [];
        break;
      }
      const size = ep.endpoint_key === 'webhook' ? WEBHOOK_BATCH : ep.endpoint_key === 'email' ? EMAIL_BATCH : 100;
      const batch = q.items.slice(0, size);
      let ok = false;
      for (let attempt = 0; attempt < this.attempts && !ok; attempt++) {
        if (attempt) await this.sleep(this.backoffMs * 2 ** (attempt - 1));
        if (q.removed || (this.closing && Date.now() > this.deadline)) break;
        try {
          await this.send(ep, r, batch);
          ok = true;
        } catch (e) {
          q.stats.last_error = (e as Error).message || String(e);
        }
      }
      if (q.removed) break;
      q.items.splice(0, batch.length);
      if (ok) {
        q.stats.num_sent += batch.length;
        q.stats.last_use = nowSec();
        q.failStreak = 0;
      } else {
        q.stats.num_failed += batch.length;
        this.drop(q, batch.length);
        if (q.failStreak++ === 0) this.log(`flowgate: notifications: recipient '${r.recipient_name}' (${ep.endpoint_key}): ${batch.length} notification(s) not delivered: ${q.stats.last_error}`);
        await this.sleep(Math.min(30000, this.backoffMs * 2 ** Math.min(q.failStreak, 16)));
      }
    }
  }

  private async send(ep: EndpointRecord, r: RecipientRecord, batch: Notification[]): Promise<void> {
    switch (ep.endpoint_key) {
      case 'webhook':
        return postWebhook(ep.params, batch, this.timeoutMs);
      case 'syslog':
        return sendSyslog(ep.params, batch, this.plain, this.timeoutMs);
      case 'email':
        return sendMail(alertMail({ ...ep.params, ...r.recipient_params }, batch, this.plain), {
          server: ep.params.smtp_server,
          username: ep.params.smtp_username,
          password: ep.params.smtp_password,
          timeoutMs: this.emailTimeoutMs,
        });
      default:
        throw new Error(`${ep.endpoint_key} notifications are not delivered by this service`);
    }
  }

  /** Resolves once every queue is empty and no delivery is under way (tests, shutdown). */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.queues.values()].map((q) => q.running).filter((p): p is Promise<void> => !!p);
      if (!running.length) return;
      await Promise.all(running);
    }
  }

  /** Stops taking notifications and delivers what is queued for at most `boundMs` (default 2000); the rest is dropped. */
  async close(boundMs = 2000): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.deadline = Date.now() + boundMs;
    for (const w of [...this.sleepers]) w();
    let t: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((r) => (t = setTimeout(r, boundMs + 100)))]);
    clearTimeout(t);
  }

  // ── configuration (serialized: one change at a time) ─────────────────

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const p = this.lock.then(fn);
    this.lock = p.catch(() => undefined);
    return p;
  }

  /** recipients.initialize: the builtin endpoint and its recipient (all categories, notice), bound everywhere when `bind`. */
  private async initialize(bind: boolean): Promise<void> {
    let ep = this.endpoints.list().find((e) => e.endpoint_key === 'alert_store_db' && e.builtin);
    ep ??= await this.endpoints.add('alert_store_db', BUILTIN_ENDPOINT_NAME, Object.create(null), true);
    if (this.recipients.byName(BUILTIN_RECIPIENT_NAME)) return;
    const id = this.recipients.freeId();
    if (id === undefined) return;
    await this.recipients.put({ recipient_id: id, endpoint_id: ep.endpoint_id, recipient_name: BUILTIN_RECIPIENT_NAME, check_categories: [...ALL_CATEGORIES], minimum_severity: DEFAULT_MIN_SEVERITY, recipient_params: Object.create(null) });
    if (bind) await this.bindEverywhere(id);
  }

  private async bindEverywhere(id: number): Promise<void> {
    if (this.pools) await this.pools.bindRecipientEverywhere(id);
    else this.pendingBinds.add(id);
  }

  private async deleteRecipient(id: number): Promise<void> {
    this.pendingBinds.delete(id);
    if (this.pools) await this.pools.unbindRecipient(id);
    await this.recipients.remove(id);
    const q = this.queues.get(id);
    if (q) {
      q.removed = true;
      q.items = [];
      this.queues.delete(id);
    }
  }

  /** endpoints.add_config */
  addEndpoint(type: unknown, name: unknown, given: Readonly<Record<string, unknown>>): Promise<Result> {
    return this.serial(async () => {
      if (!isEndpointType(type) || ENDPOINT_TYPES[type].builtin) return failed('endpoint_not_existing');
      if (checkName(name)) return failed('invalid_endpoint_conf_name', { message: `endpoint_conf_name: ${checkName(name)}` });
      const conf = String(name).trim();
      const same = this.endpoints.byName(conf);
      if (same) return failed('endpoint_config_already_existing', { endpoint_conf_name: conf }, { endpoint_id: same.endpoint_id, endpoint_conf_name: conf });
      const p = pickParams(ENDPOINT_TYPES[type].endpointParams, given);
      if (!p.ok) return p.failed;
      const ep = await this.endpoints.add(type, conf, p.params, false);
      return { status: 'OK', endpoint_id: ep.endpoint_id };
    });
  }

  /** endpoints.edit_config: the params are replaced by those given (the type's own; optional ones absent are removed). */
  editEndpoint(id: unknown, name: unknown, given: Readonly<Record<string, unknown>>): Promise<Result> {
    return this.serial(async () => {
      if (checkName(name)) return failed('invalid_endpoint_conf_name', { message: `endpoint_conf_name: ${checkName(name)}` });
      const conf = String(name).trim();
      const n = toId(id);
      const ep = n === undefined ? undefined : this.endpoints.get(n);
      if (!ep) return failed('endpoint_config_not_existing', { endpoint_conf_name: conf });
      const same = this.endpoints.byName(conf);
      if (same && same.endpoint_id !== ep.endpoint_id) return failed('endpoint_config_already_existing', { endpoint_conf_name: conf }, { endpoint_id: same.endpoint_id, endpoint_conf_name: conf });
      const p = pickParams(ENDPOINT_TYPES[ep.endpoint_key].endpointParams, given);
      if (!p.ok) return p.failed;
      await this.endpoints.put({ ...ep, endpoint_conf_name: conf, params: p.params });
      return { status: 'OK' };
    });
  }

  /** endpoints.delete_config: with its recipients. The builtin one stays (delete/endpoints resets it). */
  removeEndpoint(id: unknown): Promise<Result> {
    return this.serial(async () => {
      const n = toId(id);
      const ep = n === undefined ? undefined : this.endpoints.get(n);
      if (!ep) return failed('endpoint_config_not_existing', { endpoint_conf_name: typeof id === 'string' || typeof id === 'number' ? String(id) : '' });
      if (ep.builtin) return failed('builtin_endpoint', { endpoint_conf_name: ep.endpoint_conf_name, message: 'the builtin endpoint cannot be removed (delete/endpoints.lua resets every endpoint)' });
      for (const r of this.recipients.list()) if (r.endpoint_id === ep.endpoint_id) await this.deleteRecipient(r.recipient_id);
      await this.endpoints.remove(ep.endpoint_id);
      return { status: 'OK' };
    });
  }

  private filters(categories: unknown, minimumSeverity: unknown): { ok: true; categories: number[]; severity: number } | { ok: false; failed: Failed } {
    const c = parseCategories(categories);
    if (!c.ok) return { ok: false, failed: failed('invalid_check_categories', { message: c.message }) };
    const s = parseMinimumSeverity(minimumSeverity);
    if (!s.ok) return { ok: false, failed: failed('invalid_minimum_severity', { message: s.message }) };
    return { ok: true, categories: c.categories, severity: s.severity };
  }

  /** recipients.add_recipient */
  addRecipient(o: { endpointId: unknown; name: unknown; categories: unknown; minimumSeverity: unknown; bindToAllPools: boolean; given: Readonly<Record<string, unknown>> }): Promise<Result> {
    return this.serial(async () => {
      const eid = toId(o.endpointId);
      const ep = eid === undefined ? undefined : this.endpoints.get(eid);
      if (!ep || typeof o.name !== 'string' || !o.name.trim()) return failed('bad_endpoint');
      if (checkName(o.name)) return failed('invalid_recipient_name', { message: `recipient_name: ${checkName(o.name)}` });
      const name = o.name.trim();
      if (this.recipients.byName(name)) return failed('endpoint_recipient_already_existing', { endpoint_recipient_name: name });
      const f = this.filters(o.categories, o.minimumSeverity);
      if (!f.ok) return f.failed;
      const p = pickParams(ENDPOINT_TYPES[ep.endpoint_key].recipientParams, o.given);
      if (!p.ok) return p.failed;
      const id = this.recipients.freeId();
      if (id === undefined) return failed('too_many_recipients', { message: `at most ${MAX_RECIPIENTS} recipients` });
      await this.recipients.put({ recipient_id: id, endpoint_id: ep.endpoint_id, recipient_name: name, check_categories: f.categories, minimum_severity: f.severity, recipient_params: p.params });
      // stats start afresh for a reused id (ntopng: recipient_delete frees them)
      this.queues.delete(id);
      if (o.bindToAllPools) await this.bindEverywhere(id);
      return { status: 'OK', recipient_id: id };
    });
  }

  /** recipients.edit_recipient: name, filters and params replaced; the endpoint stays. */
  editRecipient(o: { recipientId: unknown; name: unknown; categories: unknown; minimumSeverity: unknown; given: Readonly<Record<string, unknown>> }): Promise<Result> {
    return this.serial(async () => {
      const rid = toId(o.recipientId);
      const r = rid === undefined ? undefined : this.recipients.get(rid);
      if (!r) return failed('endpoint_recipient_not_existing', { endpoint_recipient_name: typeof o.name === 'string' ? o.name : '' });
      if (checkName(o.name)) return failed('invalid_recipient_name', { message: `recipient_name: ${checkName(o.name)}` });
      const name = String(o.name).trim();
      const same = this.recipients.byName(name);
      if (same && same.recipient_id !== r.recipient_id) return failed('endpoint_recipient_already_existing', { endpoint_recipient_name: name });
      const ep = this.endpoints.get(r.endpoint_id);
      if (!ep) return failed('endpoint_config_not_existing', { endpoint_conf_name: String(r.endpoint_id) });
      const f = this.filters(o.categories, o.minimumSeverity);
      if (!f.ok) return f.failed;
      const p = pickParams(ENDPOINT_TYPES[ep.endpoint_key].recipientParams, o.given);
      if (!p.ok) return p.failed;
      await this.recipients.put({ ...r, recipient_name: name, check_categories: f.categories, minimum_severity: f.severity, recipient_params: p.params });
      return { status: 'OK' };
    });
  }

  /** recipients.delete_recipient: true when it existed and went (the builtin one stays: delete/recipients resets it). */
  removeRecipient(id: unknown): Promise<boolean> {
    return this.serial(async () => {
      const rid = toId(id);
      const r = rid === undefined ? undefined : this.recipients.get(rid);
      if (!r || this.endpoints.get(r.endpoint_id)?.builtin) return false;
      await this.deleteRecipient(r.recipient_id);
      return true;
    });
  }

  /** recipients.test_recipient: sends a test message for real with the endpoint's params and the recipient params given. */
  async testRecipient(endpointId: unknown, given: Readonly<Record<string, unknown>>): Promise<Result> {
    const eid = toId(endpointId);
    const ep = eid === undefined ? undefined : this.endpoints.get(eid);
    if (!ep) return failed('endpoint_config_not_existing', { endpoint_conf_name: typeof endpointId === 'string' ? endpointId : '' });
    const p = pickParams(ENDPOINT_TYPES[ep.endpoint_key].recipientParams, given);
    if (!p.ok) return p.failed;
    if (ep.endpoint_key === 'alert_store_db') return failed('endpoint_test_failure', { message: 'Not implemented' });
    if (!ENDPOINT_TYPES[ep.endpoint_key].delivered) return failed('endpoint_test_not_available', { endpoint_recipient_name: ep.endpoint_key });
    let last = '';
    for (let attempt = 0; attempt < (ep.endpoint_key === 'webhook' ? this.attempts : 1); attempt++) {
      try {
        if (ep.endpoint_key === 'webhook') await postWebhook(ep.params, [], this.timeoutMs);
        else if (ep.endpoint_key === 'syslog') await sendSyslog(ep.params, [testNotification()], this.plain, this.timeoutMs);
        else {
          const params: Params = { ...ep.params, ...p.params };
          await sendMail(
            { from: params.email_sender, to: params.email_recipient, cc: params.cc, subject: 'TEST MAIL', body: 'Email notification is working' },
            { server: params.smtp_server, username: params.smtp_username, password: params.smtp_password, timeoutMs: this.emailTimeoutMs },
          );
        }
        return { status: 'OK' };
      } catch (e) {
        last = (e as Error).message || String(e);
      }
    }
    return failed('endpoint_test_failure', { message: last });
  }

  /** recipients.cleanup: every recipient deleted, the builtin one created again (bound to every pool). */
  resetRecipients(): Promise<void> {
    return this.serial(async () => {
      for (const r of this.recipients.list()) await this.deleteRecipient(r.recipient_id);
      await this.initialize(true);
    });
  }

  /** delete/endpoints.lua: endpoints.reset_configs + recipients.cleanup (factory reset). */
  resetEndpoints(): Promise<void> {
    return this.serial(async () => {
      for (const r of this.recipients.list()) await this.deleteRecipient(r.recipient_id);
      for (const e of this.endpoints.list()) await this.endpoints.remove(e.endpoint_id);
      await this.initialize(true);
    });
  }

  // ── views (ntopng's get_endpoint_configs.lua / get_recipients_endpoint.lua) ──

  stats(id: number): RecipientStats {
    const q = this.queues.get(id);
    const s = q?.stats ?? { last_use: 0, num_drops: 0, num_uses: 0, num_sent: 0, num_failed: 0, last_error: '' };
    const queued = q?.items.length ?? 0;
    return { ...s, fill_pct: Math.floor((queued * 100) / this.queueSize), num_queued: queued };
  }

  private endpointConf(ep: EndpointRecord): Record<string, unknown> {
    return { ...ep.params, endpoint_conf_name: ep.endpoint_conf_name, ...(ep.builtin ? { builtin: true } : {}) };
  }

  /** recipients.get_recipient */
  recipientView(r: RecipientRecord, withStats: boolean): Record<string, unknown> {
    const ep = this.endpoints.get(r.endpoint_id);
    const type = ep ? ENDPOINT_TYPES[ep.endpoint_key] : undefined;
    const first = type?.recipientParams[0];
    const fmt = !ep || ep.builtin ? '' : first ? `${r.recipient_params[first.name] ?? ''} (${type!.name})` : `(${type!.name})`;
    return {
      endpoint_id: String(r.endpoint_id),
      recipient_id: r.recipient_id,
      recipient_name: r.recipient_name,
      check_categories: [...r.check_categories],
      minimum_severity: r.minimum_severity,
      recipient_params: luaTable({ ...r.recipient_params }),
      endpoint_conf_name: ep?.endpoint_conf_name ?? String(r.endpoint_id),
      endpoint_conf: ep ? this.endpointConf(ep) : {},
      endpoint_key: ep?.endpoint_key ?? '',
      recipient_params_fmt: fmt,
      ...(withStats ? { stats: this.stats(r.recipient_id) } : {}),
    };
  }

  /** get_endpoint_configs.lua: each endpoint with its recipients and their stats (export: without). */
  endpointConfigs(withStats = true): Record<string, unknown>[] {
    const all = this.recipients.list();
    return this.endpoints.list().map((ep) => ({
      status: 'OK',
      endpoint_id: String(ep.endpoint_id),
      endpoint_conf_name: ep.endpoint_conf_name,
      endpoint_key: ep.endpoint_key,
      endpoint_conf: this.endpointConf(ep),
      recipients: all.filter((r) => r.endpoint_id === ep.endpoint_id).map((r) => this.recipientView(r, withStats)),
    }));
  }

  /**
   * notifications_import_export import (endpoints.add_configs_with_recipients):
   * each endpoint of the file that is not builtin, with its recipients, added
   * as the page scripts add them. What could not be added (a name that
   * exists, a bad parameter …) is listed, the rest is kept.
   */
  async importConfig(conf: readonly unknown[]): Promise<string[]> {
    const failedItems: string[] = [];
    for (const c of conf) {
      const e = (c && typeof c === 'object' ? c : {}) as Record<string, unknown>;
      const params = e.endpoint_conf && typeof e.endpoint_conf === 'object' ? (e.endpoint_conf as Record<string, unknown>) : null;
      const label = `endpoint ${JSON.stringify(String(e.endpoint_conf_name ?? '?')).slice(0, 80)}`;
      if (params?.builtin) continue;
      if (!params || !Array.isArray(e.recipients)) {
        failedItems.push(`${label}: endpoint_key, endpoint_conf_name, endpoint_conf and recipients are required`);
        continue;
      }
      const added = await this.addEndpoint(e.endpoint_key, e.endpoint_conf_name, params);
      if (added.status !== 'OK') {
        failedItems.push(`${label}: ${JSON.stringify(added.error)}`);
        continue;
      }
      for (const x of e.recipients) {
        const r = (x && typeof x === 'object' ? x : {}) as Record<string, unknown>;
        const given = r.recipient_params && typeof r.recipient_params === 'object' ? (r.recipient_params as Record<string, unknown>) : {};
        const res = await this.addRecipient({ endpointId: added.endpoint_id, name: r.recipient_name, categories: r.check_categories, minimumSeverity: r.minimum_severity, bindToAllPools: false, given });
        if (res.status !== 'OK') failedItems.push(`recipient ${JSON.stringify(String(r.recipient_name ?? '?')).slice(0, 80)}: ${JSON.stringify(res.error)}`);
      }
    }
    return failedItems;
  }

  /** How many pools a recipient is bound to (get_recipients_endpoint's bind_to_pools). */
  poolsBound(id: number): number {
    const p = this.pools;
    if (!p) return this.recipients.builtinIds().includes(id) ? POOL_KINDS.length : 0;
    if (p.poolsBoundTo) return p.poolsBoundTo(id);
    // without the count: the default pools only
    return POOL_KINDS.filter((k) => p.recipientsOf(k, DEFAULT_POOL_ID).includes(id)).length;
  }

  /** get_recipients_endpoint.lua: every recipient with its stats and the number of pools bound to it. */
  recipientList(): Record<string, unknown>[] {
    // ntopng sets bind_to_pools only when it finds a pool bound to the recipient
    return this.recipients.list().map((r) => {
      const n = this.poolsBound(r.recipient_id);
      return { ...this.recipientView(r, true), ...(n ? { bind_to_pools: n } : {}) };
    });
  }
}
