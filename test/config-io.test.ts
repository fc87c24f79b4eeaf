// Configuration export / import through the REST API: every module round
// trips (export, wipe, import gives back the same export, ids aside), the
// pool paths carry their five modules as ntopng's, `all` carries every
// module, and the codes: -5 (not an export), -27 (a module missing), -8 (a
// module of the wrong shape), -28 (applied in part, the rest kept).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startOnOnePacket, v1, v2, type ApiService } from './fixtures/api.js';

let s: ApiService & { cleanup(): Promise<void> };
beforeAll(async () => {
  s = await startOnOnePacket();
});
afterAll(() => s.cleanup());

const ok = (r: { body: any }) => {
  expect(r.body?.rc, JSON.stringify(r.body).slice(0, 400)).toBe(0);
  return r.body.rsp;
};
const page = (p: string) => `/lua/${p}.lua`;

/** what an export says, without the ids a new store assigns (endpoint ids count up) */
function normal(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normal);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'endpoint_id' && k !== 'status') out[k] = normal(x);
    return out;
  }
  return v;
}

async function configure() {
  const c = s.checking;
  const e1 = await c.notifications.addEndpoint('webhook', 'hook', { webhook_url: 'http://127.0.0.1:9/alerts', webhook_sharedsecret: 's3cret' });
  const r1 = await c.notifications.addRecipient({ endpointId: String(e1.endpoint_id), name: 'ops', categories: '1,3', minimumSeverity: '5', bindToAllPools: false, given: {} });
  const e2 = await c.notifications.addEndpoint('email', 'mail', { smtp_server: 'smtp://127.0.0.1:25', email_sender: 'flowgate <alerts@example.org>' });
  const r2 = await c.notifications.addRecipient({ endpointId: String(e2.endpoint_id), name: 'soc', categories: '', minimumSeverity: '', bindToAllPools: true, given: { email_recipient: 'soc@example.org' } });
  expect([r1.status, r2.status]).toEqual(['OK', 'OK']);
  const am = await c.activeMonitoring.add({ host: '127.0.0.1', measurement: 'icmp', threshold: 120, granularity: '5mins' }, { resolve: false });
  await c.activeMonitoring.add({ host: '10.1.2.3:8080', measurement: 'tcp', threshold: 50 }, { resolve: false });
  const ops = r1.recipient_id as number;
  await c.pools.add('host', 'Office', ['192.168.10.0/24@0', '02:00:00:00:01:03'], [ops]);
  await c.pools.add('interface', 'Uplinks', ['0'], [ops]);
  await c.pools.add('active_monitoring', 'Probes', [am], [ops]);
  await c.pools.edit('flow', 0, undefined, undefined, [0, ops]);
  await c.checks.setEnabled('host', 'syn_scan', true);
}

async function wipe() {
  ok(await s.call(v2('delete/endpoints'), { method: 'POST' }));
  ok(await s.call(v2('reset/pool/config'), { method: 'POST' }));
  ok(await s.call(v2('reset/active_monitoring/config'), { method: 'POST' }));
  ok(await s.call(v2('reset/checks/config'), { method: 'POST' }));
}

describe('configuration export and import', () => {
  let poolFile: any;
  it('export/pool/config carries the five modules; a wipe, then an import, gives the same export back', async () => {
    await configure();
    poolFile = ok(await s.call(v2('export/pool/config')));
    expect(poolFile.version).toBe('1.0');
    expect(Object.keys(poolFile.modules).sort()).toEqual(['active_monitoring', 'notifications', 'pool', 'scripts', 'snmp']);
    const m = poolFile.modules;
    expect(m.notifications.map((e: any) => [e.endpoint_key, e.endpoint_conf_name, e.recipients.map((r: any) => r.recipient_name)])).toEqual([
      ['alert_store_db', 'builtin_endpoint_alert_store_db', ['builtin_recipient_alert_store_db']],
      ['webhook', 'hook', ['ops']],
      ['email', 'mail', ['soc']],
    ]);
    expect(m.pool.host.map((p: any) => [p.name, p.members])).toEqual([['Default', []], ['Jailed Hosts', []], ['Office', ['192.168.10.0/24@0', '02:00:00:00:01:03']]]);
    // am_import_export's {res, vs_config}
    expect(Object.keys(m.active_monitoring.res).sort()).toEqual(['icmp@127.0.0.1', 'tcp@10.1.2.3:8080']);
    expect(m.active_monitoring.vs_config).toEqual([]);
    expect(m.scripts['0'].config.host.syn_scan).toBeDefined();
    // v1 POST answers the same document; download: the file itself
    expect(normal(ok(await s.call(v1('export/pool/config'), { method: 'POST' })))).toEqual(normal(poolFile));
    const file = await s.call(v2('export/pool/config'), { query: { download: 'true' } });
    expect(file.headers.get('content-disposition')).toContain('configuration.json');
    expect(normal(file.body)).toEqual(normal(poolFile));

    await wipe();
    const empty = ok(await s.call(v2('export/pool/config')));
    expect(empty.modules.notifications.length).toBe(1);
    expect(empty.modules.pool.host.map((p: any) => p.name)).toEqual(['Default', 'Jailed Hosts']);
    expect(empty.modules.active_monitoring).toEqual({ res: [], vs_config: [] });

    ok(await s.call(v1('import/pool/config'), { form: { JSON: JSON.stringify(poolFile) } }));
    expect(normal(ok(await s.call(v2('export/pool/config'))))).toEqual(normal(poolFile));
    // and the restored configuration is live: the host pool reaches the engine's hosts
    expect(ok(await s.call(v2('get/host/pool_by_member'), { query: { member: '192.168.10.0/24' } })).name).toBe('Office');
  });

  it('each single module round trips: notifications, active_monitoring, scripts (and checks), snmp', async () => {
    for (const [m, wipeIt] of [
      ['notifications', () => s.call(v2('delete/endpoints'), { method: 'POST' })],
      ['active_monitoring', () => s.call(v2('reset/active_monitoring/config'), { method: 'POST' })],
      ['scripts', () => s.call(v2('reset/checks/config'), { method: 'POST' })],
      ['checks', () => s.call(v2('reset/checks/config'), { method: 'POST' })],
      ['snmp', async () => ({ body: { rc: 0 } })],
    ] as const) {
      const f = ok(await s.call(v2(`export/${m}/config`)));
      expect(Object.keys(f.modules), m).toEqual([m === 'checks' ? 'scripts' : m]);
      ok(await wipeIt());
      // the JSON body form too
      ok(await s.call(v2(`import/${m}/config`), { json: f }));
      expect(normal(ok(await s.call(v2(`export/${m}/config`)))), m).toEqual(normal(f));
    }
    expect(ok(await s.call(v2('export/snmp/config'))).modules.snmp).toEqual({});
  });

  it('`all` carries every module, the network configuration and the hosts\' names, and restores them', async () => {
    ok(await s.call(v2('set/host/alias'), { form: { host: '10.0.0.1', custom_name: 'gateway' } }));
    ok(await s.call(v2('set/network/config'), { json: { config: [{ key: 'dns_list', value: '10.0.0.53,10.0.1.0/24@7' }] } }));
    // custom category hosts and a protocol's category (ntopng's prefs dump holds both)
    ok(await s.call(v2('edit/category/category'), { query: { category: 'cat_6', custom_hosts: 'social.example,10.66.0.0/16', alias: 'Social' } }));
    ok(await s.call(v2('edit/application/application'), { query: { l7_proto_id: 7, category: 9 } }));
    const all = ok(await s.call(v2('export/all/config')));
    expect(Object.keys(all.modules)).toEqual(['all']);
    expect(Object.keys(all.modules.all).sort()).toEqual(['active_monitoring', 'categories', 'host_aliases', 'infrastructure', 'network_config', 'notifications', 'pool', 'scripts', 'snmp']);
    expect(all.modules.all.host_aliases).toEqual({ '10.0.0.1': 'gateway' });
    expect(all.modules.all.network_config.dns_list).toBe('10.0.0.53,10.0.1.0/24@7');
    expect(all.modules.all.categories).toEqual({ categories: { 6: { hosts: ['social.example', '10.66.0.0/16'], alias: 'Social' } }, app_categories: { 7: 9 } });
    await wipe();
    ok(await s.call(v2('set/host/alias'), { form: { host: '10.0.0.1', custom_name: ' ' } }));
    ok(await s.call(v2('set/network/config'), { json: { config: [{ key: 'dns_list', value: '' }] } }));
    ok(await s.call(v2('edit/category/category'), { query: { category: 'cat_6', custom_hosts: '' } }));
    ok(await s.call(v2('edit/application/application'), { query: { l7_proto_id: 7, category: 5 } }));
    expect(ok(await s.call(v2('export/all/config'))).modules.all.host_aliases).toEqual({});
    ok(await s.call(v1('import/all/config'), { form: { JSON: JSON.stringify(all) } }));
    expect(normal(ok(await s.call(v2('export/all/config'))))).toEqual(normal(all));
    // live again: the host's name and the allowed DNS servers
    expect(ok(await s.call(v2('get/host/data'), { query: { ifid: 0, host: '10.0.0.1' } })).name).toBe('gateway');
    expect(ok(await s.call(v2('get/network/config'), { query: { ifid: 0 } })).find((x: any) => x.key === 'dns_list').value_description).toBe('10.0.0.53,10.0.1.0/24@7');
    const social = ok(await s.call(v2('get/category/list'), { query: { ifid: 0 } })).find((x: any) => x.column_category_id === 6);
    expect([social.column_category_name, social.column_category_hosts]).toEqual(['Social', 'social.example,10.66.0.0/16']);
    expect(ok(await s.call(v2('get/l7/application/consts'))).find((x: any) => x.appl_id === 7).cat_id).toBe(9);
  });

  it('answers -5, -27, -8 and -28, and keeps what it could apply', async () => {
    const imp = (m: string, body: unknown) => s.call(v1(`import/${m}/config`), { form: { JSON: typeof body === 'string' ? body : JSON.stringify(body) } });
    expect((await imp('pool', 'not json')).body.rc).toBe(-5);
    expect((await imp('pool', { version: '2.0', modules: {} })).body.rc).toBe(-5);
    // the pool paths need the five modules
    const noSnmp = { ...poolFile, modules: { ...poolFile.modules } };
    delete noSnmp.modules.snmp;
    expect((await imp('pool', noSnmp)).body.rc).toBe(-27);
    expect((await imp('notifications', { version: '1.0', modules: { pool: {} } })).body.rc).toBe(-27);
    expect((await imp('notifications', { version: '1.0', modules: { notifications: { hook: 1 } } })).body.rc).toBe(-8);
    // partial: a new endpoint with a bad URL is not added, a good one is; a pool naming an unknown recipient
    await wipe();
    const bad = {
      version: '1.0',
      modules: {
        notifications: [
          { endpoint_key: 'webhook', endpoint_conf_name: 'bad', endpoint_conf: { webhook_url: 'ftp://x' }, recipients: [] },
          { endpoint_key: 'webhook', endpoint_conf_name: 'good', endpoint_conf: { webhook_url: 'http://127.0.0.1:9/' }, recipients: [{ recipient_name: 'r-good', check_categories: [1], minimum_severity: 4, recipient_params: {} }] },
        ],
      },
    };
    const partial = await imp('notifications', bad);
    expect(partial.body.rc).toBe(-28);
    expect(partial.body.rc_str_detail).toContain('bad');
    const eps = ok(await s.call(v2('export/notifications/config'))).modules.notifications.map((e: any) => e.endpoint_conf_name);
    expect(eps).toEqual(['builtin_endpoint_alert_store_db', 'good']);
    const pools = { version: '1.0', modules: { pool: { host: [{ name: 'Lab', members: ['10.9.0.0/16@0'], recipients: [{ recipient_name: 'nobody' }] }], interface: [{ name: 'Ghost', members: ['7'], recipients: [] }] } } };
    const p2 = await s.call(v2('import/all/config'), { json: { version: '1.0', modules: { all: pools.modules } } });
    expect(p2.body.rc).toBe(-28);
    // Lab is added (without the unknown recipient), Ghost (no interface 7) is not
    const hostPools = ok(await s.call(v2('get/host/pools'))).map((p: any) => [p.name, p.members, p.recipients.length]);
    expect(hostPools).toContainEqual(['Lab', ['10.9.0.0/16@0'], 0]);
    expect(ok(await s.call(v2('get/interface/pools'))).map((p: any) => p.name)).toEqual(['Default']);
    // SNMP devices cannot be configured yet: an snmp module with devices is applied in part
    expect((await imp('snmp', { version: '1.0', modules: { snmp: { '10.0.0.1': { community: 'public' } } } })).body.rc).toBe(-28);
  });

  it('is for administrators only', async () => {
    for (const url of [v2('export/pool/config'), v1('import/all/config'), v2('reset/pool/config'), page('get_endpoint_configs')]) {
      const r = await s.call(url, { user: null });
      expect(r.status, url).toBe(401);
    }
  });
});
