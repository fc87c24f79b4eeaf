// The end to end: a SYN scan built here is replayed; the scanner and
// its target are members of a host pool bound to a webhook, a syslog (UDP)
// and an email recipient (real receivers started here); a fourth recipient
// on the same pool wants emergencies only, a fifth is bound to the default
// host pool only. The scan's alerts (syn_scan, severity warning) reach the
// three, once each for engage and release, and never the other two; the
// stored alerts carry the pool. Flow alerts of replayed nDPI captures reach
// the flow pool's recipients once per alerted flow, as the stored rows say.
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService } from './fixtures/api.js';
import { pcap, tempDir } from './fixtures/pcap.js';
import { httpReceiver, pythonSmtp, udpReceiver } from './fixtures/receivers.js';
import { S, SYN_SCAN, T, scanThenQuiet } from './fixtures/syn-scan.js';
import { T0 } from './fixtures/ts-capture.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const tmp = tempDir();
const closers: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c();
  tmp.cleanup();
});


describe('a SYN scan notified through a host pool', () => {
  it('reaches the webhook, syslog and email recipients of the pool, not a stricter one nor the default pool\'s', async () => {
    const hook = await httpReceiver();
    const strict = await httpReceiver();
    const other = await httpReceiver();
    const udp = await udpReceiver();
    const smtp = await pythonSmtp();
    closers.push(() => hook.close(), () => strict.close(), () => other.close(), () => udp.close(), () => smtp.close());
    const file = tmp.file('scan.pcap', pcap(scanThenQuiet()));
    let pool = -1;
    const s: ApiService = await startApi({
      files: [file],
      history: true,
      configure: async (checks, checking) => {
        await checks.setEnabled('host', 'syn_scan', true);
        const n = checking.notifications;
        const rec = async (type: string, name: string, params: Record<string, string>, minimumSeverity: string, given: Record<string, string> = {}) => {
          const e = await n.addEndpoint(type, name, params);
          expect(e.status).toBe('OK');
          const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: `${name}-r`, categories: '', minimumSeverity, bindToAllPools: false, given });
          expect(r.status).toBe('OK');
          return r.recipient_id as number;
        };
        const ids = [
          await rec('webhook', 'hook', { webhook_url: hook.url }, '3'),
          await rec('syslog', 'log', { syslog_alert_format: 'json', syslog_host: '127.0.0.1', syslog_port: String(udp.port) }, '3'),
          await rec('email', 'mail', { smtp_server: `smtp://127.0.0.1:${smtp.port}`, email_sender: 'flowgate <alerts@example.org>' }, '3', { email_recipient: 'soc@example.org' }),
          // emergencies only (ntopng severity 8)
          await rec('webhook', 'strict', { webhook_url: strict.url }, '8'),
        ];
        const dflt = await rec('webhook', 'other', { webhook_url: other.url }, '3');
        pool = await checking.pools.add('host', 'Lab', ['192.168.7.0/24@0'], ids);
        // the default host pool gets the fifth recipient only
        await checking.pools.edit('host', 0, undefined, undefined, [dflt]);
      },
    });
    closers.push(() => s.close());
    expect(pool).toBe(2);
    await s.checking.notifications.idle();

    const sorted = (x: unknown[][]) => x.map((r) => JSON.stringify(r)).sort();
    const want = sorted([
      ['engage', S, T0 + 60, null],
      ['engage', T, T0 + 60, null],
      ['release', S, T0 + 60, T0 + 120],
      ['release', T, T0 + 60, T0 + 120],
    ]);
    // webhook: each once
    const hooked = hook.hits.flatMap((h) => h.body.alerts) as any[];
    expect(sorted(hooked.map((a) => [a.action, a.entity_val, a.tstamp, a.tstamp_end ?? null]))).toEqual(want);
    for (const a of hooked) expect(a).toMatchObject({ alert_id: SYN_SCAN, entity_id: 1, severity: 4, pool_id: pool });
    // syslog: one JSON message per notification
    const logged = udp.lines.map((l) => JSON.parse(l.slice(l.indexOf('{'))));
    expect(sorted(logged.map((a) => [a.action, a.entity_val, a.tstamp, a.tstamp_end ?? null]))).toEqual(want);
    // syslog PRI: facility 14, ntopng's warning → syslog level 4
    for (const l of udp.lines) expect(l.startsWith(`<${14 * 8 + 4}>`)).toBe(true);
    // email: to the recipient, naming both hosts
    expect(smtp.mails.length).toBeGreaterThan(0);
    for (const m of smtp.mails) expect(m.rcpttos).toEqual(['soc@example.org']);
    const body = smtp.mails.map((m) => m.data).join('\n');
    expect(body).toContain(S);
    expect(body).toContain(T);
    // never the stricter recipient nor the default pool's
    expect(strict.hits.length).toBe(0);
    expect(other.hits.length).toBe(0);
    // the stored alerts carry the pool (host_pool_id filter of the alert list)
    await s.checking.alerts.flush();
    const r = await s.call(v2('get/host/alert/list'), { query: { ifid: 0, status: 'historical', epoch_begin: T0 - 3600, epoch_end: T0 + 3600, host_pool_id: `${pool};eq`, length: 100 } });
    expect(r.body.rc).toBe(0);
    expect((r.body.rsp.records ?? r.body.rsp.data ?? r.body.rsp).length).toBe(2);
  });
});

describe('flow alerts notified', () => {
  // with periodic rows (every 5 s of a flow's life) a long flow has several rows: it is notified once, with its first alerted row
  it.each([0, 5])('each alerted flow once to the flow pool recipients, as its first alerted row says; a category filter holds (periodic rows every %i s)', async (periodicDumpSec) => {
    const all = await httpReceiver();
    const net = await httpReceiver();
    closers.push(() => all.close(), () => net.close());
    const s: ApiService = await startApi({
      files: [join(NDPI_PCAPS, 'WebattackSQLinj.pcap'), join(NDPI_PCAPS, '1kxun.pcap')],
      engine: { flushAtEnd: true, periodicDumpSec },
      history: true,
      configure: async (_c, checking) => {
        const n = checking.notifications;
        for (const [name, url, categories] of [['all', all.url, ''], ['net', net.url, '3']] as const) {
          const e = await n.addEndpoint('webhook', name, { webhook_url: url });
          // debug and above, bound to every pool (the flow pool among them)
          const r = await n.addRecipient({ endpointId: String(e.endpoint_id), name: `${name}-r`, categories, minimumSeverity: '1', bindToAllPools: true, given: {} });
          expect(r.status).toBe('OK');
        }
      },
    });
    closers.push(() => s.close());
    await s.checking.notifications.idle();
    let rows = await s.history!.backend.query({
      sql: 'SELECT FLOW_ID, INTERFACE_ID, IPV4_SRC_ADDR, IPV6_SRC_ADDR, IP_SRC_PORT, IPV4_DST_ADDR, IPV6_DST_ADDR, IP_DST_PORT, STATUS, SCORE, ALERT_CATEGORY FROM flows WHERE STATUS <> 0 ORDER BY FIRST_SEEN, LAST_SEEN',
      params: [],
    });
    // each flow's first alerted row
    const firsts = new Map<string, any>();
    for (const r of rows as any[]) if (!firsts.has(String(r.FLOW_ID))) firsts.set(String(r.FLOW_ID), r);
    if (periodicDumpSec) expect(rows.length).toBeGreaterThan(firsts.size);
    rows = [...firsts.values()];
    const ip = (v4: number, v6: string) => (Number(v4) ? [Number(v4) >>> 24, (Number(v4) >>> 16) & 255, (Number(v4) >>> 8) & 255, Number(v4) & 255].join('.') : v6);
    const stored = rows.map((r: any) => JSON.stringify([Number(r.INTERFACE_ID), ip(r.IPV4_SRC_ADDR, r.IPV6_SRC_ADDR), Number(r.IP_SRC_PORT), ip(r.IPV4_DST_ADDR, r.IPV6_DST_ADDR), Number(r.IP_DST_PORT), Number(r.STATUS), Number(r.SCORE)])).sort();
    expect(stored.length).toBeGreaterThan(5);
    // the recipients are bound to every pool: the other families' alerts (new devices …) come too
    const got = (h: { hits: { body: any }[] }) => (h.hits.flatMap((x) => x.body.alerts) as any[]).filter((a) => a.entity_id === 4);
    const notified = got(all).map((a) => JSON.stringify([a.ifid, a.cli_ip, a.cli_port, a.srv_ip, a.srv_port, a.alert_id, a.score])).sort();
    expect(notified).toEqual(stored);
    for (const a of got(all)) expect(a).toMatchObject({ entity_id: 4, entity_val: 'flow', action: 'store', is_flow_alert: true, pool_id: 0 });
    // the network-category recipient: exactly the rows whose alert category is network
    const netRows = rows.filter((r: any) => Number(r.ALERT_CATEGORY) === 3).length;
    expect(got(net).length).toBe(netRows);
    for (const a of got(net)) expect(a.alert_category).toBe(3);
  });
});
