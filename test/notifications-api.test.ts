// Notification endpoints and recipients through the API (ntopng's page
// scripts edit_endpoint.lua, edit_notification_recipient.lua,
// get_endpoint_configs.lua, get_recipients_endpoint.lua and v1/v2
// delete/endpoints|recipients.lua) on the real service with its real pools,
// and alerts delivered end to end: configured over HTTP then raised (user
// activity, a host alert), and configured before a replayed SYN scan.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { addUser, startApi, startOnOnePacket, v1, v2, type ApiService } from './fixtures/api.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { httpReceiver } from './fixtures/receivers.js';
import { S, T, scanThenQuiet } from './fixtures/syn-scan.js';
import { T0 } from './fixtures/ts-capture.js';

const page = (p: string) => `/lua/${p}.lua`;
const tmp = tempDir();
const closers: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  tmp.cleanup();
});

const BUILTIN_RECIPIENT = {
  recipient_id: 0,
  recipient_name: 'builtin_recipient_alert_store_db',
  check_categories: [0, 1, 2, 3, 4, 5],
  minimum_severity: 3,
  recipient_params: {},
  endpoint_conf_name: 'builtin_endpoint_alert_store_db',
  endpoint_conf: { endpoint_conf_name: 'builtin_endpoint_alert_store_db', builtin: true },
  endpoint_key: 'alert_store_db',
  recipient_params_fmt: '',
};

describe('endpoints and recipients API', () => {
  let s: ApiService & { cleanup(): Promise<void> };
  const ep = (form: Record<string, string>) => s.call(page('edit_endpoint'), { form });
  const rc = (form: Record<string, string>) => s.call(page('edit_notification_recipient'), { form });

  it('starts with the builtin endpoint and recipient, bound to every default pool and the jail', async () => {
    s = await startOnOnePacket();
    closers.push(() => s.cleanup());
    const r = await s.call(page('get_endpoint_configs'));
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(1);
    expect(r.body[0]).toMatchObject({
      status: 'OK',
      endpoint_id: '1',
      endpoint_conf_name: 'builtin_endpoint_alert_store_db',
      endpoint_key: 'alert_store_db',
      endpoint_conf: { endpoint_conf_name: 'builtin_endpoint_alert_store_db', builtin: true },
    });
    expect(r.body[0].recipients).toHaveLength(1);
    expect(r.body[0].recipients[0]).toMatchObject({ ...BUILTIN_RECIPIENT, endpoint_id: '1' });
    expect(Object.keys(r.body[0].recipients[0].stats).sort()).toEqual(['fill_pct', 'last_error', 'last_use', 'num_drops', 'num_failed', 'num_queued', 'num_sent', 'num_uses']);
    const l = await s.call(page('get_recipients_endpoint'));
    expect(l.body).toHaveLength(1);
    expect(l.body[0]).toMatchObject({ ...BUILTIN_RECIPIENT, bind_to_pools: 10 });
  });

  it('edit_endpoint: every error form, then add, edit, remove', async () => {
    expect((await ep({ action: 'add', endpoint_conf_type: 'pigeon', endpoint_conf_name: 'x' })).body).toEqual({ result: { status: 'failed', error: { type: 'endpoint_not_existing' } } });
    // a name of Object.prototype is no type
    expect((await ep({ action: 'add', endpoint_conf_type: 'toString', endpoint_conf_name: 'x' })).body.result.error.type).toBe('endpoint_not_existing');
    // the builtin type is not configurable
    expect((await ep({ action: 'add', endpoint_conf_type: 'alert_store_db', endpoint_conf_name: 'x' })).body.result.error.type).toBe('endpoint_not_existing');
    expect((await ep({ action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: '' })).body).toEqual({ result: { status: 'failed', error: { type: 'invalid_endpoint_conf_name', message: 'endpoint_conf_name: empty' } } });
    expect((await ep({ action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: 'hook' })).body).toEqual({ result: { status: 'failed', error: { type: 'missing_mandatory_param', missing_param: 'webhook_url' } } });
    expect((await ep({ action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: 'hook', webhook_url: 'ftp://example.org/' })).body).toEqual({
      result: { status: 'failed', error: { type: 'invalid_param_value', param: 'webhook_url', message: 'webhook_url: must be an http:// or https:// URL' } },
    });
    expect((await ep({ action: 'add', endpoint_conf_type: 'syslog', endpoint_conf_name: 'sl', syslog_alert_format: 'json', syslog_port: '70000' })).body.result.error).toEqual({
      type: 'invalid_param_value', param: 'syslog_port', message: 'syslog_port: must be a port number 1-65535',
    });
    expect((await ep({ action: 'add', endpoint_conf_type: 'syslog', endpoint_conf_name: 'sl', syslog_alert_format: 'json', syslog_host: 'bad host!' })).body.result.error.param).toBe('syslog_host');
    expect((await ep({ action: 'add', endpoint_conf_type: 'syslog', endpoint_conf_name: 'sl', syslog_alert_format: 'xml' })).body.result.error.message).toBe('syslog_alert_format: must be one of plaintext, plaintextrfc, json');
    expect((await ep({ action: 'add', endpoint_conf_type: 'email', endpoint_conf_name: 'em', smtp_server: 'smtp://mail.example.org:25', email_sender: 'a@b.org\r\nBcc: x@y.org' })).body.result.error.param).toBe('email_sender');
    expect((await ep({ action: 'add', endpoint_conf_type: 'email', endpoint_conf_name: 'em', smtp_server: 'imap://mail.example.org', email_sender: 'a@b.org' })).body.result.error.param).toBe('smtp_server');

    const ok = await ep({ action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: 'hook', webhook_url: 'http://127.0.0.1:9/x', webhook_username: 'u', ignored_param: 'z' });
    expect(ok.body).toEqual({ result: { status: 'OK', endpoint_id: 2 } });
    expect((await ep({ action: 'add', endpoint_conf_type: 'syslog', endpoint_conf_name: 'hook', syslog_alert_format: 'json' })).body).toEqual({
      result: { status: 'failed', endpoint_id: 2, endpoint_conf_name: 'hook', error: { type: 'endpoint_config_already_existing', endpoint_conf_name: 'hook' } },
    });
    expect((await ep({ action: 'edit', endpoint_id: '99', endpoint_conf_name: 'hook2', webhook_url: 'http://a/' })).body).toEqual({ result: { status: 'failed', error: { type: 'endpoint_config_not_existing', endpoint_conf_name: 'hook2' } } });
    expect((await ep({ action: 'edit', endpoint_id: '2', endpoint_conf_name: 'hook2', webhook_url: 'https://example.org/in' })).body).toEqual({ result: { status: 'OK' } });
    const conf = (await s.call(page('get_endpoint_configs'))).body.find((e: { endpoint_id: string }) => e.endpoint_id === '2');
    // edit replaces the params: the user name not given again is gone, the unknown param never kept
    expect(conf).toEqual({ status: 'OK', endpoint_id: '2', endpoint_conf_name: 'hook2', endpoint_key: 'webhook', endpoint_conf: { webhook_url: 'https://example.org/in', endpoint_conf_name: 'hook2' }, recipients: [] });
    expect((await ep({ action: 'remove', endpoint_id: '1' })).body.result).toMatchObject({ status: 'failed', error: { type: 'builtin_endpoint' } });
    expect((await ep({ action: 'remove', endpoint_id: 'abc' })).body).toEqual({ result: { status: 'failed', error: { type: 'endpoint_config_not_existing', endpoint_conf_name: 'abc' } } });
    expect((await ep({ action: 'frobnicate' })).body).toEqual({ success: false, message: "Invalid 'action' parameter." });
    // prototype keys never reach an object: refused as parameter names
    const proto = await s.call(page('edit_endpoint'), { json: '{"action":"add","endpoint_conf_type":"webhook","endpoint_conf_name":"p","__proto__":{"webhook_url":"http://x/"}}' });
    expect(proto.status).toBe(400);
    expect(proto.body.error).toBe('INVALID_ARGUMENTS');
    const big = await ep({ action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: 'x'.repeat(2000), webhook_url: 'http://a/' });
    expect(big.status).toBe(400);
    expect(big.body.error).toBe('INVALID_ARGUMENTS');
    expect((await ep({ action: 'remove', endpoint_id: '2' })).body).toEqual({ result: { status: 'OK' } });
    expect((await s.call(page('get_endpoint_configs'))).body).toHaveLength(1);
  });

  it('edit_notification_recipient: errors, filters, lowest free id, at most 64', async () => {
    const e = (await ep({ action: 'add', endpoint_conf_type: 'email', endpoint_conf_name: 'mail', smtp_server: 'mail.example.org', email_sender: 'n <n@example.org>' })).body.result;
    expect(e).toEqual({ status: 'OK', endpoint_id: 3 });
    const eid = String(e.endpoint_id);
    expect((await rc({ action: 'add', endpoint_id: '77', recipient_name: 'r' })).body).toEqual({ result: { status: 'failed', error: { type: 'bad_endpoint' } } });
    expect((await rc({ action: 'add', endpoint_id: eid })).body).toEqual({ result: { status: 'failed', error: { type: 'bad_endpoint' } } });
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'ops' })).body).toEqual({ result: { status: 'failed', error: { type: 'missing_mandatory_param', missing_param: 'email_recipient' } } });
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'ops', email_recipient: 'nobody' })).body.result.error).toMatchObject({ type: 'invalid_param_value', param: 'email_recipient' });
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'ops', email_recipient: 'o@example.org', recipient_check_categories: '1,7' })).body.result.error).toEqual({
      type: 'invalid_check_categories', message: "recipient_check_categories: '7' is not a category id (0, 1, 2, 3, 4, 5)",
    });
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'ops', email_recipient: 'o@example.org', recipient_minimum_severity: '9' })).body.result.error.type).toBe('invalid_minimum_severity');
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'builtin_recipient_alert_store_db', email_recipient: 'o@example.org' })).body).toEqual({
      result: { status: 'failed', error: { type: 'endpoint_recipient_already_existing', endpoint_recipient_name: 'builtin_recipient_alert_store_db' } },
    });
    const a = await rc({ action: 'add', endpoint_id: eid, recipient_name: 'ops', email_recipient: 'o@example.org', recipient_check_categories: '3,1', recipient_minimum_severity: '5' });
    expect(a.body).toEqual({ result: { status: 'OK', recipient_id: 1 } });
    const b = await rc({ action: 'add', endpoint_id: eid, recipient_name: 'sec', email_recipient: 's@example.org' });
    expect(b.body).toEqual({ result: { status: 'OK', recipient_id: 2 } });
    const list = (await s.call(page('get_recipients_endpoint'))).body as Record<string, any>[];
    expect(list.map((r) => [r.recipient_id, r.recipient_name, r.check_categories, r.minimum_severity, r.recipient_params, r.recipient_params_fmt, r.bind_to_pools])).toEqual([
      // an empty Lua table is [] in ntopng's JSON; bind_to_pools only when some pool is bound
      [0, 'builtin_recipient_alert_store_db', [0, 1, 2, 3, 4, 5], 3, [], '', 10],
      [1, 'ops', [3, 1], 5, { email_recipient: 'o@example.org' }, 'o@example.org (Email)', undefined],
      [2, 'sec', [0, 1, 2, 3, 4, 5], 3, { email_recipient: 's@example.org' }, 's@example.org (Email)', undefined],
    ]);
    expect((await rc({ action: 'edit', recipient_id: '9', recipient_name: 'x' })).body).toEqual({ result: { status: 'failed', error: { type: 'endpoint_recipient_not_existing', endpoint_recipient_name: 'x' } } });
    expect((await rc({ action: 'edit', recipient_id: '1', recipient_name: 'sec', email_recipient: 'o@example.org' })).body.result.error.type).toBe('endpoint_recipient_already_existing');
    expect((await rc({ action: 'edit', recipient_id: '1', recipient_name: 'ops2', email_recipient: 'o2@example.org', recipient_minimum_severity: '8' })).body).toEqual({ result: { status: 'OK' } });
    const edited = ((await s.call(page('get_recipients_endpoint'))).body as Record<string, any>[])[1];
    expect([edited.recipient_name, edited.check_categories, edited.minimum_severity, edited.recipient_params]).toEqual(['ops2', [0, 1, 2, 3, 4, 5], 8, { email_recipient: 'o2@example.org' }]);
    expect((await rc({ action: 'remove', recipient_id: '0' })).body).toEqual({ result: false });
    expect((await rc({ action: 'remove', recipient_id: '1' })).body).toEqual({ result: true });
    expect((await rc({ action: 'remove', recipient_id: '1' })).body).toEqual({ result: false });
    // the lowest free id is reused
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'again', email_recipient: 'a@example.org' })).body).toEqual({ result: { status: 'OK', recipient_id: 1 } });
    for (let i = 3; i < 64; i++) expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: `n${i}`, email_recipient: 'a@example.org' })).body.result.recipient_id).toBe(i);
    expect((await rc({ action: 'add', endpoint_id: eid, recipient_name: 'n64', email_recipient: 'a@example.org' })).body).toEqual({ result: { status: 'failed', error: { type: 'too_many_recipients', message: 'at most 64 recipients' } } });
    expect((await s.call(page('get_recipients_endpoint'))).body).toHaveLength(64);
    expect((await rc({ action: 'nope' })).body).toEqual({ success: false, message: "Invalid 'action' parameter." });
    // config-only types: accepted, tested as not available
    const sl = (await ep({ action: 'add', endpoint_conf_type: 'slack', endpoint_conf_name: 'sl', slack_sender_username: 'ntop', slack_webhook: 'https://hooks.slack.example/x' })).body.result;
    expect(sl.status).toBe('OK');
    expect((await rc({ action: 'test', endpoint_id: String(sl.endpoint_id) })).body).toEqual({ result: { status: 'failed', error: { type: 'endpoint_test_not_available', endpoint_recipient_name: 'slack' } } });
    expect((await rc({ action: 'test', endpoint_id: '1' })).body).toEqual({ result: { status: 'failed', error: { type: 'endpoint_test_failure', message: 'Not implemented' } } });
  });

  it('delete/recipients keeps the endpoints and resets the recipients; delete/endpoints resets everything', async () => {
    const r = await s.call(v2('delete/recipients'), { method: 'POST' });
    expect(r.body).toMatchObject({ rc: 0, rc_str: 'OK', rsp: [] });
    expect(((await s.call(page('get_recipients_endpoint'))).body as unknown[]).map((x: any) => [x.recipient_id, x.recipient_name, x.bind_to_pools])).toEqual([[0, 'builtin_recipient_alert_store_db', 10]]);
    expect(((await s.call(page('get_endpoint_configs'))).body as any[]).map((e) => e.endpoint_conf_name)).toEqual(['builtin_endpoint_alert_store_db', 'mail', 'sl']);
    await rc({ action: 'add', endpoint_id: '3', recipient_name: 'x', email_recipient: 'x@example.org', bind_to_all_pools: 'true' });
    // v1, by GET as ntopng's v1 script
    const d = await s.call(v1('delete/endpoints'));
    expect(d.body).toMatchObject({ rc: 0, rsp: [] });
    const after = (await s.call(page('get_endpoint_configs'))).body as any[];
    // the builtin endpoint again, with a new id (ids never go back); its recipient again as 0
    expect(after.map((e) => [e.endpoint_id, e.endpoint_conf_name, e.recipients.map((x: any) => x.recipient_id)])).toEqual([['5', 'builtin_endpoint_alert_store_db', [0]]]);
    expect(((await s.call(page('get_recipients_endpoint'))).body as any[]).map((x) => x.bind_to_pools)).toEqual([10]);
  });

  it('administrators only (-3)', async () => {
    await addUser(s, { username: 'viewer', password: 'Viewer-pw-1' });
    const as = { user: 'viewer', pw: 'Viewer-pw-1' };
    for (const p of ['get_endpoint_configs', 'get_recipients_endpoint', 'edit_endpoint', 'edit_notification_recipient']) {
      const r = await s.call(page(p), { ...as, form: { action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: 'v', webhook_url: 'http://a/' } });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('NOT_GRANTED');
    }
    for (const p of [v2('delete/endpoints'), v2('delete/recipients'), v1('delete/endpoints'), v1('delete/recipients')]) {
      const r = await s.call(p, { ...as, method: 'POST' });
      expect(r.body.rc).toBe(-3);
    }
    expect(((await s.call(page('get_endpoint_configs'))).body as any[]).map((e) => e.endpoint_conf_name)).toEqual(['builtin_endpoint_alert_store_db']);
  });
});

describe('delivery, configured over HTTP', () => {
  it('a recipient added with bind_to_all_pools gets the user activity and host alerts raised afterwards; a restart keeps it', async () => {
    const hook = await httpReceiver();
    closers.push(() => hook.close());
    const dataDir = mkdtempSync(join(tmpdir(), 'fg-notif-api-'));
    closers.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const s1 = await startOnOnePacket({ dataDir });
    const e = await s1.call(page('edit_endpoint'), { form: { action: 'add', endpoint_conf_type: 'webhook', endpoint_conf_name: 'hook', webhook_url: hook.url, webhook_sharedsecret: 'sh' } });
    expect(e.body.result).toEqual({ status: 'OK', endpoint_id: 2 });
    const r = await s1.call(page('edit_notification_recipient'), { form: { action: 'add', endpoint_id: '2', recipient_name: 'ops', bind_to_all_pools: 'true', recipient_check_categories: '0,1' } });
    expect(r.body.result).toEqual({ status: 'OK', recipient_id: 1 });
    // adding the recipient is user activity: raised once the recipient exists, so delivered to it
    const n = s1.checking.notifications;
    await n.idle();
    expect(hook.hits).toHaveLength(1);
    expect(hook.hits[0].body.sharedsecret).toBe('sh');
    const act = hook.hits[0].body.alerts;
    expect(act).toHaveLength(1);
    expect(act[0]).toMatchObject({ action: 'store', entity_id: 7, entity_val: 'admin', alert_id: 4139, ifid: -1, severity: 3, score: 10, pool_id: 0, user: 'admin' });
    expect(JSON.parse(act[0].json)).toMatchObject({ scope: 'function', name: 'edit_notification_recipient', params: { action: 'add', recipient_name: 'ops' } });
    // a host alert raised on the alert service (as the checks do)
    const scan = { family: 'host' as const, ifid: 0, entityVal: '10.0.0.1', alertId: 5, subtype: '', tstamp: 1_700_000_060, score: 50, severity: 4, fields: { ip: '10.0.0.1', vlan_id: 0, is_attacker: 1 }, json: { value: 300, threshold: 256 } };
    s1.checking.alerts.engage(scan);
    s1.checking.alerts.engage({ ...scan, tstamp: 1_700_000_120 });
    s1.checking.alerts.release(scan, 1_700_000_180);
    await n.idle();
    const host = hook.hits.slice(1).flatMap((h) => h.body.alerts);
    expect(host.map((a: any) => [a.action, a.entity_id, a.entity_val, a.alert_id, a.tstamp, a.tstamp_end, a.is_attacker])).toEqual([
      ['engage', 1, '10.0.0.1', 5, 1_700_000_060, undefined, true],
      ['release', 1, '10.0.0.1', 5, 1_700_000_060, 1_700_000_180, true],
    ]);
    const stats = ((await s1.call(page('get_recipients_endpoint'))).body as any[]).find((x) => x.recipient_id === 1);
    expect(stats.stats).toMatchObject({ num_uses: 3, num_sent: 3, num_drops: 0, num_failed: 0 });
    expect(stats.bind_to_pools).toBe(10);
    await s1.close();

    const s2 = await startOnOnePacket({ dataDir });
    closers.push(() => s2.cleanup());
    const kept = (await s2.call(page('get_endpoint_configs'))).body as any[];
    expect(kept.map((x) => [x.endpoint_id, x.endpoint_conf_name, x.endpoint_conf, x.recipients.map((y: any) => [y.recipient_id, y.recipient_name, y.check_categories, y.minimum_severity])])).toEqual([
      ['1', 'builtin_endpoint_alert_store_db', { endpoint_conf_name: 'builtin_endpoint_alert_store_db', builtin: true }, [[0, 'builtin_recipient_alert_store_db', [0, 1, 2, 3, 4, 5], 3]]],
      ['2', 'hook', { webhook_url: hook.url, webhook_sharedsecret: 'sh', endpoint_conf_name: 'hook' }, [[1, 'ops', [0, 1], 3]]],
    ]);
    // and still delivered to after the restart (the pools kept the binding)
    const before = hook.hits.length;
    s2.checking.alerts.emit({ ...scan, tstamp: 1_700_000_300 });
    await s2.checking.notifications.idle();
    expect(hook.hits.slice(before).flatMap((h) => h.body.alerts).map((a: any) => [a.action, a.entity_val])).toEqual([['store', '10.0.0.1']]);
  });
});

describe('delivery of a replayed SYN scan', () => {
  it('configured before the replay: the attacker and victim alerts are engaged then released to the webhook', async () => {
    const hook = await httpReceiver();
    closers.push(() => hook.close());
    const file = tmp.file('scan.pcap', pcap(scanThenQuiet()));
    const s = await startApi({
      files: [file],
      configure: async (checks, checking) => {
        await checks.setEnabled('host', 'syn_scan', true);
        const n = checking.notifications;
        const e = await n.addEndpoint('webhook', 'hook', { webhook_url: hook.url });
        // security alerts of warning and above only
        const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: 'sec', categories: '1', minimumSeverity: '4', bindToAllPools: true, given: {} });
        expect(r.status).toBe('OK');
      },
    });
    closers.push(() => s.close());
    await s.checking.notifications.idle();
    const got = hook.hits.flatMap((h) => h.body.alerts) as any[];
    const seen = got.map((a) => [a.action, a.entity_val, a.alert_id, a.tstamp, a.tstamp_end ?? null, a.is_attacker, a.is_victim]).sort((a, b) => String(a).localeCompare(String(b)));
    expect(seen).toEqual(
      [
        ['engage', S, 5, T0 + 60, null, true, false],
        ['engage', T, 5, T0 + 60, null, false, true],
        ['release', S, 5, T0 + 60, T0 + 120, true, false],
        ['release', T, 5, T0 + 60, T0 + 120, false, true],
      ].sort((a, b) => String(a).localeCompare(String(b))),
    );
    for (const a of got) expect(a).toMatchObject({ ifid: 0, entity_id: 1, severity: 4, pool_id: 0 });
  });
});
