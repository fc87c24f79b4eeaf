// Alert delivery to notification recipients, against real receivers on
// 127.0.0.1: webhook (HTTP), syslog (UDP, TCP), email (SMTP: Python's smtpd
// and a small server offering AUTH). The pools are a stub here (every kind's
// default pool bound to the recipients listed); the service-level tests use
// the real pools service.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { AlertInput } from '../ts/services/alerts/types.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { Notifications, type NotificationsOptions } from '../ts/services/notifications/index.js';
import { dotStuff, sendMail } from '../ts/services/notifications/senders/email.js';
import { DEFAULT_POOL_ID, POOL_KINDS, type PoolDirectory, type PoolKind } from '../ts/services/pools/types.js';
import { authSmtp, blackHole, closedPort, httpReceiver, pythonSmtp, tcpLineReceiver, udpReceiver, waitFor } from './fixtures/receivers.js';

const dirs: string[] = [];
const closers: (() => unknown)[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** Every kind's default pool holds `bound`; other pools do not exist (recipientsOf falls back to the default). */
class StubPools implements PoolDirectory {
  bound: number[] = [];
  poolOf() {
    return DEFAULT_POOL_ID;
  }
  recipientsOf(_k: PoolKind, _p: number) {
    return [...this.bound];
  }
  async bindRecipientEverywhere(id: number) {
    if (!this.bound.includes(id)) this.bound.push(id);
  }
  async unbindRecipient(id: number) {
    this.bound = this.bound.filter((x) => x !== id);
  }
}

async function open(o: NotificationsOptions = {}, dir = mkdtempSync(join(tmpdir(), 'fg-notif-'))) {
  if (!dirs.includes(dir)) dirs.push(dir);
  const store = new ConfigStore(dir);
  const n = await Notifications.open(store, { batchMs: 5, backoffMs: 20, timeoutMs: 1000, log: () => {}, ifname: (i) => `eth${i}`, ...o });
  const pools = new StubPools();
  pools.bound = n.recipients.builtinIds();
  n.setPools(pools);
  closers.push(async () => {
    await n.close(500);
    await store.close();
  });
  return { n, pools, store, dir };
}

const T = 1_700_000_000;
/** host_alert_syn_scan (5, security), warning: what the SYN-scan check raises for an attacker */
const synScan = (ip = '192.168.7.66', tstamp = T, score = 50): AlertInput => ({
  family: 'host', ifid: 0, entityVal: ip, alertId: 5, subtype: '', tstamp, score, severity: score >= 50 ? 4 : 3,
  fields: { ip, vlan_id: 0, name: 'scanner.lan', is_attacker: 1, is_victim: 0, is_client: 1, is_server: 0 },
  json: { value: 300, threshold: 256 },
});
/** alert_user_activity (4139, other), notice */
const activity = (i: number): AlertInput => ({
  family: 'user', ifid: -1, entityVal: 'admin', alertId: 4139, subtype: `function/f${i}/`, tstamp: T + i, score: 10, severity: 3,
  fields: { user: 'admin' }, json: { scope: 'function', name: `f${i}` },
});

async function webhookRecipient(n: Notifications, pools: StubPools, url: string, extra: Record<string, string> = {}, filters: { categories?: string; severity?: string } = {}) {
  const name = `hook-${Math.random().toString(36).slice(2)}`;
  const e = await n.addEndpoint('webhook', name, { webhook_url: url, ...extra });
  expect(e.status).toBe('OK');
  const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: `r-${name}`, categories: filters.categories, minimumSeverity: filters.severity, bindToAllPools: true, given: {} });
  expect(r).toMatchObject({ status: 'OK' });
  expect(pools.bound).toContain(r.recipient_id);
  return r.recipient_id as number;
}

describe('webhook', () => {
  let hook: Awaited<ReturnType<typeof httpReceiver>>;
  beforeEach(async () => {
    hook = await httpReceiver();
    closers.push(() => hook.close());
  });

  it('an engaged alert arrives once, with ntopng fields, shared secret and basic auth; a refresh is not a new one; the release follows', async () => {
    const { n, pools } = await open();
    const id = await webhookRecipient(n, pools, hook.url, { webhook_sharedsecret: 's3cret', webhook_username: 'bob', webhook_password: 'pw:1' });
    n.engage(synScan());
    n.engage({ ...synScan(), tstamp: T + 60, json: { value: 400, threshold: 256 } });
    await n.idle();
    expect(hook.hits).toHaveLength(1);
    const h = hook.hits[0];
    expect(h.headers['content-type']).toBe('application/json');
    expect(h.headers.authorization).toBe(`Basic ${Buffer.from('bob:pw:1').toString('base64')}`);
    expect(h.body).toEqual({
      version: '0.2',
      sharedsecret: 's3cret',
      alerts: [
        {
          ifid: 0, pool_id: 0, action: 'engage', alert_id: 5, subtype: '', score: 50, severity: 4, entity_id: 1, entity_val: '192.168.7.66',
          tstamp: T, granularity: 0, json: '{"value":300,"threshold":256}', ip: '192.168.7.66', vlan_id: 0, name: 'scanner.lan', ip_version: 4,
          is_attacker: true, is_victim: false, is_client: true, is_server: false,
        },
      ],
    });
    n.release({ family: 'host', ifid: 0, entityVal: '192.168.7.66', alertId: 5, subtype: '' }, T + 120);
    // an unknown key is not notified
    n.release({ family: 'host', ifid: 0, entityVal: '192.168.7.99', alertId: 5, subtype: '' }, T + 120);
    await n.idle();
    expect(hook.hits).toHaveLength(2);
    expect(hook.hits[1].body.alerts).toHaveLength(1);
    // the release carries the last measure, first and last time
    expect(hook.hits[1].body.alerts[0]).toMatchObject({ action: 'release', tstamp: T, tstamp_end: T + 120, json: '{"value":400,"threshold":256}' });
    expect(n.stats(id)).toMatchObject({ num_uses: 2, num_sent: 2, num_drops: 0, num_failed: 0, num_queued: 0, fill_pct: 0 });
    expect(n.stats(id).last_use).toBeGreaterThan(0);
  });

  it('batches at most 10 alerts per request', async () => {
    const { n, pools } = await open();
    await webhookRecipient(n, pools, hook.url);
    for (let i = 0; i < 25; i++) n.emit(activity(i));
    await n.idle();
    expect(hook.hits.map((h) => h.body.alerts.length)).toEqual([10, 10, 5]);
    const sent = hook.hits.flatMap((h) => h.body.alerts);
    expect(sent.map((a: { subtype: string }) => a.subtype)).toEqual(Array.from({ length: 25 }, (_, i) => `function/f${i}/`));
    expect(sent[0]).toMatchObject({ action: 'store', entity_id: 7, entity_val: 'admin', alert_id: 4139, ifid: -1, tstamp: T, tstamp_end: T, user: 'admin', name: 'admin' });
    expect(hook.hits[0].body.sharedsecret).toBeUndefined();
    expect(hook.hits[0].headers.authorization).toBeUndefined();
  });

  it('retries after a 500: delivered once', async () => {
    const flaky = await httpReceiver((_h, i) => (i === 1 ? 500 : 200));
    closers.push(() => flaky.close());
    const { n, pools } = await open();
    const id = await webhookRecipient(n, pools, flaky.url);
    n.emit(activity(1));
    await n.idle();
    expect(flaky.hits).toHaveLength(2);
    expect(flaky.hits[1].raw).toBe(flaky.hits[0].raw);
    expect(n.stats(id)).toMatchObject({ num_uses: 1, num_sent: 1, num_failed: 0, num_drops: 0 });
    expect(n.stats(id).last_error).toBe('the webhook answered HTTP 500');
  });

  it('filters: a higher minimum severity or another category gets nothing', async () => {
    const { n, pools } = await open();
    const other = await httpReceiver();
    closers.push(() => other.close());
    const sev = await webhookRecipient(n, pools, hook.url, {}, { severity: '5' }); // error
    const cat = await webhookRecipient(n, pools, other.url, {}, { categories: '0,3' }); // other, network
    n.engage(synScan()); // security, warning
    await n.idle();
    expect(hook.hits).toHaveLength(0);
    expect(other.hits).toHaveLength(0);
    expect(n.stats(sev).num_uses).toBe(0);
    expect(n.stats(cat).num_uses).toBe(0);
    // the user activity (other, notice): the category one takes it, the severity one does not
    n.emit(activity(1));
    await n.idle();
    expect(hook.hits).toHaveLength(0);
    expect(other.hits).toHaveLength(1);
    // an error-level scan (score 100 → error) reaches the severity one only
    n.engage({ ...synScan('10.0.0.9', T, 100), severity: 5 });
    await n.idle();
    expect(hook.hits).toHaveLength(1);
    expect(hook.hits[0].body.alerts[0]).toMatchObject({ entity_val: '10.0.0.9', severity: 5 });
    expect(other.hits).toHaveLength(1);
  });

  it('a recipient not bound to the pool gets nothing; the builtin one counts what it is given', async () => {
    const { n, pools } = await open();
    const id = await webhookRecipient(n, pools, hook.url);
    await pools.unbindRecipient(id);
    const builtin = n.recipients.builtinIds()[0];
    n.emit(activity(1));
    n.engage(synScan());
    await n.idle();
    expect(hook.hits).toHaveLength(0);
    expect(n.stats(builtin)).toMatchObject({ num_uses: 2, num_sent: 2, num_drops: 0 });
  });

  it('a dead webhook does not delay a live one; its failures and drops are counted', async () => {
    const hole = await blackHole();
    closers.push(() => hole.close());
    const refused = await closedPort();
    const { n, pools } = await open({ timeoutMs: 2500, attempts: 2 });
    const dead = await webhookRecipient(n, pools, `http://127.0.0.1:${hole.port}/`);
    const gone = await webhookRecipient(n, pools, `http://127.0.0.1:${refused}/`);
    await webhookRecipient(n, pools, hook.url);
    for (let i = 0; i < 3; i++) n.emit(activity(i));
    await waitFor(() => hook.hits.length === 1, 'the live webhook');
    expect(hook.hits[0].body.alerts).toHaveLength(3);
    // the live one was served while the dead one still waits for its first answer
    expect(n.stats(dead)).toMatchObject({ num_sent: 0, num_failed: 0, num_queued: 3 });
    await n.idle();
    expect(hole.connections()).toBe(2);
    expect(n.stats(dead)).toMatchObject({ num_uses: 3, num_sent: 0, num_failed: 3, num_drops: 3, num_queued: 0 });
    expect(n.stats(dead).last_error).toContain('no answer within 2500 ms');
    expect(n.stats(gone)).toMatchObject({ num_uses: 3, num_sent: 0, num_failed: 3, num_drops: 3 });
    expect(n.stats(gone).last_error).toContain('ECONNREFUSED');
    expect(n.dropped).toBe(6);
  });

  it('a full queue drops and counts', async () => {
    const hole = await blackHole();
    closers.push(() => hole.close());
    const { n, pools } = await open({ queueSize: 4, timeoutMs: 500, attempts: 1 });
    const id = await webhookRecipient(n, pools, `http://127.0.0.1:${hole.port}/`);
    for (let i = 0; i < 10; i++) n.emit(activity(i));
    expect(n.stats(id)).toMatchObject({ num_uses: 4, num_drops: 6, num_queued: 4, fill_pct: 100 });
    expect(n.dropped).toBe(6);
    await n.idle();
    expect(n.stats(id)).toMatchObject({ num_uses: 4, num_failed: 4, num_drops: 10, num_queued: 0 });
    expect(n.dropped).toBe(10);
  });

  it('the test action posts an empty alert list; a dead URL fails', async () => {
    const { n } = await open();
    const e = await n.addEndpoint('webhook', 'w', { webhook_url: hook.url, webhook_sharedsecret: 'x' });
    expect(await n.testRecipient(String(e.endpoint_id), {})).toEqual({ status: 'OK' });
    expect(hook.hits.map((h) => h.body)).toEqual([{ version: '0.2', sharedsecret: 'x', alerts: [] }]);
    const e2 = await n.addEndpoint('webhook', 'w2', { webhook_url: `http://127.0.0.1:${await closedPort()}/` });
    const t = await n.testRecipient(String(e2.endpoint_id), {});
    expect(t).toMatchObject({ status: 'failed', error: { type: 'endpoint_test_failure' } });
    expect(String((t as unknown as { error: { message: string } }).error.message)).toContain('ECONNREFUSED');
  });
});

describe('without pools', () => {
  it('alerts go to the builtin recipients only, by their filters', async () => {
    const hook = await httpReceiver();
    closers.push(() => hook.close());
    const dir = mkdtempSync(join(tmpdir(), 'fg-notif-'));
    dirs.push(dir);
    const store = new ConfigStore(dir);
    const n = await Notifications.open(store, { batchMs: 5, log: () => {} });
    closers.push(async () => {
      await n.close(200);
      await store.close();
    });
    const e = await n.addEndpoint('webhook', 'w', { webhook_url: hook.url });
    // bound once pools are set
    const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'r', categories: '', minimumSeverity: '', bindToAllPools: true, given: {} });
    expect(r).toEqual({ status: 'OK', recipient_id: 1 });
    const builtin = n.recipients.builtinIds();
    expect(builtin).toEqual([0]);
    n.emit(activity(1));
    // a debug-level alert: below the builtin's notice
    n.emit({ ...activity(2), severity: 1, score: 1 });
    await n.idle();
    expect(hook.hits).toHaveLength(0);
    expect(n.stats(0)).toMatchObject({ num_uses: 1, num_sent: 1 });
    const pools = new StubPools();
    pools.bound = [0];
    n.setPools(pools);
    await waitFor(() => pools.bound.includes(1), 'the pending bind');
    n.emit(activity(3));
    await n.idle();
    expect(hook.hits).toHaveLength(1);
  });
});

describe('syslog', () => {
  /** <PRI>1 TIMESTAMP HOST APP PID MSGID SD MSG (RFC 5424) */
  const RFC5424 = /^<(\d+)>1 (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ) (\S+) (\S+) (\d+) - - (.*)$/;
  /** <PRI>Mmm dd hh:mm:ss HOST APP[PID]: MSG (BSD) */
  const BSD = /^<(\d+)>([A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d) (\S+) (\S+)\[(\d+)\]: (.*)$/;

  it('UDP, plaintextrfc: RFC 5424 header, PRI = 14 × 8 + the syslog level, ntopng\'s text', async () => {
    const udp = await udpReceiver();
    closers.push(() => udp.close());
    const { n, pools } = await open();
    const e = await n.addEndpoint('syslog', 's', { syslog_alert_format: 'plaintextrfc', syslog_host: '127.0.0.1', syslog_port: String(udp.port) });
    const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'sr', categories: '', minimumSeverity: '', bindToAllPools: true, given: {} });
    expect(pools.bound).toContain(r.recipient_id);
    n.engage(synScan()); // warning: syslog level 4
    n.emit(activity(1)); // notice: 5
    await n.idle();
    await waitFor(() => udp.lines.length === 2, 'two datagrams');
    const [a, b] = udp.lines.map((l) => RFC5424.exec(l));
    expect(a && b).toBeTruthy();
    expect(a![1]).toBe(String(14 * 8 + 4));
    expect(b![1]).toBe(String(14 * 8 + 5));
    expect(a![4]).toBe('ntopng');
    expect(a![5]).toBe(String(process.pid));
    expect(a![6]).toBe('[2023-11-14T22:13:20Z]  [eth0] [Warning] [TCP SYN Scan][Host][192.168.7.66] [Engaged] {"value":300,"threshold":256}');
    expect(b![6]).toBe('[2023-11-14T22:13:21Z]  [Notice] [User Activity][User][admin]  {"scope":"function","name":"f1"}');
  });

  it('TCP, json: BSD header, one line per notification', async () => {
    const tcp = await tcpLineReceiver();
    closers.push(() => tcp.close());
    const { n, pools } = await open();
    const e = await n.addEndpoint('syslog', 's', { syslog_alert_format: 'json', syslog_protocol: 'tcp', syslog_host: '127.0.0.1', syslog_port: String(tcp.port) });
    await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'sr', categories: '1', minimumSeverity: '4', bindToAllPools: true, given: {} });
    expect(pools.bound).toHaveLength(2);
    n.engage(synScan());
    n.emit(activity(1)); // other category: not for this recipient
    n.engage({ ...synScan('10.1.1.1', T, 200), severity: 6 });
    await n.idle();
    await waitFor(() => tcp.lines.length === 2, 'two lines');
    const m = tcp.lines.map((l) => BSD.exec(l)!);
    expect(m.map((x) => x[1])).toEqual([String(14 * 8 + 4), String(14 * 8 + 2)]);
    expect(m[0][4]).toBe('ntopng');
    const body = m.map((x) => JSON.parse(x[6]));
    expect(body.map((b) => [b.action, b.entity_val, b.severity, b.alert_id])).toEqual([
      ['engage', '192.168.7.66', 4, 5],
      ['engage', '10.1.1.1', 6, 5],
    ]);
  });

  it('no syslog_host and no /dev/log here: counted as failed', async () => {
    const { n, pools } = await open({ attempts: 1 });
    const e = await n.addEndpoint('syslog', 's', { syslog_alert_format: 'plaintext' });
    const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'sr', categories: '', minimumSeverity: '', bindToAllPools: true, given: {} });
    expect(pools.bound).toContain(r.recipient_id);
    n.emit(activity(1));
    await n.idle();
    const { existsSync } = await import('node:fs');
    if (existsSync('/dev/log')) expect(n.stats(r.recipient_id as number).num_sent).toBe(1);
    else expect(n.stats(r.recipient_id as number)).toMatchObject({ num_failed: 1, num_drops: 1, last_error: 'no local syslog (/dev/log is missing) and no syslog_host set' });
  });
});

describe('email', () => {
  it('one mail per batch to Python smtpd: sender, recipient and cc, ntopng subject and body', async () => {
    const smtp = await pythonSmtp();
    closers.push(() => smtp.close());
    const { n, pools } = await open();
    const e = await n.addEndpoint('email', 'mail', { smtp_server: `smtp://127.0.0.1:${smtp.port}`, email_sender: 'ntop <alerts@example.org>' });
    expect(e.status).toBe('OK');
    const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'ops', categories: '', minimumSeverity: '', bindToAllPools: true, given: { email_recipient: 'ops@example.org', cc: 'Boss <boss@example.org>' } });
    expect(pools.bound).toContain(r.recipient_id);
    n.engage(synScan());
    n.emit(activity(1));
    await n.idle();
    await waitFor(() => smtp.mails.length === 1, 'the mail');
    const m = smtp.mails[0];
    expect(m.mailfrom).toBe('alerts@example.org');
    expect(m.rcpttos).toEqual(['ops@example.org', 'boss@example.org']);
    const [head, body] = m.data.split(/\r?\n\r?\n/);
    expect(head).toMatch(/^From: ntop <alerts@example.org>$/m);
    expect(head).toMatch(/^To: ops@example.org$/m);
    expect(head).toMatch(/^Cc: Boss <boss@example.org>$/m);
    expect(head).toMatch(/^Subject: ntopng \[[^\]@]+@[^\]]+\] \(2 alerts\)$/m);
    expect(head).toMatch(/^Content-Type: text\/html; charset=UTF-8$/m);
    expect(body.trim()).toBe(
      '[14/11/2023 22:13:20]  [eth0] [Warning] [TCP SYN Scan][Host][192.168.7.66] [Engaged] {"value":300,"threshold":256}<br>' +
        '[14/11/2023 22:13:21]  [Notice] [User Activity][User][admin]  {"scope":"function","name":"f1"}',
    );
    expect(n.stats(r.recipient_id as number)).toMatchObject({ num_uses: 2, num_sent: 2 });
  });

  it('dot-stuffing: a body line starting with a dot arrives intact', async () => {
    const smtp = await pythonSmtp();
    closers.push(() => smtp.close());
    expect(dotStuff('a\r\n.b\r\n..c')).toBe('a\r\n..b\r\n...c');
    await sendMail({ from: 'a@example.org', to: 'b@example.org', subject: 's', body: 'first\n.second\n.\nthird' }, { server: `127.0.0.1:${smtp.port}`, timeoutMs: 5000 });
    await waitFor(() => smtp.mails.length === 1, 'the mail');
    expect(smtp.mails[0].data.split(/\r?\n\r?\n/)[1].split(/\r?\n/)).toEqual(['first', '.second', '.', 'third']);
  });

  it('AUTH PLAIN and AUTH LOGIN; wrong credentials fail the test action', async () => {
    const plain = await authSmtp(['PLAIN', 'LOGIN'], 'u1', 'p\u00e91');
    const login = await authSmtp(['LOGIN'], 'u2', 'p2');
    closers.push(() => plain.close(), () => login.close());
    const { n } = await open();
    const ok1 = await n.addEndpoint('email', 'm1', { smtp_server: `smtp://127.0.0.1:${plain.port}`, email_sender: 'a@example.org', smtp_username: 'u1', smtp_password: 'p\u00e91' });
    const ok2 = await n.addEndpoint('email', 'm2', { smtp_server: `127.0.0.1:${login.port}`, email_sender: 'a@example.org', smtp_username: 'u2', smtp_password: 'p2' });
    const bad = await n.addEndpoint('email', 'm3', { smtp_server: `smtp://127.0.0.1:${login.port}`, email_sender: 'a@example.org', smtp_username: 'u2', smtp_password: 'nope' });
    expect(await n.testRecipient(String(ok1.endpoint_id), { email_recipient: 'x@example.org' })).toEqual({ status: 'OK' });
    expect(await n.testRecipient(String(ok2.endpoint_id), { email_recipient: 'y@example.org' })).toEqual({ status: 'OK' });
    const t = await n.testRecipient(String(bad.endpoint_id), { email_recipient: 'z@example.org' });
    expect(t).toEqual({ status: 'failed', error: { type: 'endpoint_test_failure', message: 'SMTP: AUTH LOGIN password refused: 535 bad credentials' } });
    expect(plain.mails.map((m) => [m.auth, m.rcpttos])).toEqual([['PLAIN u1', ['x@example.org']]]);
    expect(login.mails.map((m) => [m.auth, m.rcpttos])).toEqual([['LOGIN u2', ['y@example.org']]]);
    expect(plain.mails[0].data).toMatch(/^Subject: ntopng \[.*\] TEST MAIL$/m);
    expect(plain.mails[0].data.split('\n\n')[1].trim()).toBe('Email notification is working');
    // the recipient param is mandatory for a test too
    expect(await n.testRecipient(String(ok1.endpoint_id), {})).toEqual({ status: 'failed', error: { type: 'missing_mandatory_param', missing_param: 'email_recipient' } });
  });
});

describe('persistence', () => {
  it('endpoints and recipients survive a reopen of the store', async () => {
    const a = await open();
    const e = await a.n.addEndpoint('webhook', 'keep', { webhook_url: 'https://example.org/x', webhook_username: 'u' });
    const r = await a.n.addRecipient({ endpointId: String(e.endpoint_id), name: 'kept', categories: '1,5', minimumSeverity: '6', bindToAllPools: false, given: {} });
    const before = { e: a.n.endpointConfigs(), r: a.n.recipients.list() };
    await a.n.close();
    await a.store.close();
    closers.length = 0;
    const b = await open({}, a.dir);
    expect(b.n.endpointConfigs().map((x) => ({ ...x, recipients: [] }))).toEqual(before.e.map((x) => ({ ...x, recipients: [] })));
    expect(b.n.recipients.list()).toEqual(before.r);
    expect(b.n.recipients.get(r.recipient_id as number)).toMatchObject({ recipient_name: 'kept', check_categories: [1, 5], minimum_severity: 6 });
    // ids go on from where they were
    const e2 = await b.n.addEndpoint('webhook', 'next', { webhook_url: 'https://example.org/y' });
    expect(e2).toEqual({ status: 'OK', endpoint_id: (e.endpoint_id as number) + 1 });
  });
});

it('every pool kind is known to the stub (sanity of the contract used above)', () => {
  expect(POOL_KINDS).toContain('system');
});
