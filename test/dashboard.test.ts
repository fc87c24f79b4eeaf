// The web dashboard in a real browser: Playwright (playwright-core) drives
// Debian's chromium against the service replaying a shared capture. What a
// page shows is compared with what the public REST API answers for the
// same question (and, for the egress page, with the capture's own packet
// count): login, every page without console errors, paging, sorting,
// searching, alert acknowledge / delete, the chart range picker, logout.
// Screenshots of each page are kept in test-artifacts/dashboard/.
//
// Needs /usr/bin/chromium and the built dashboard (dist/web, `npm install`);
// skipped without them, failing under CI.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { WEB_DIR } from '../ts/api/dashboard.js';
import { ADMIN_PASSWORD, addUser, startApi, type ApiService } from './fixtures/api.js';
import { freePort, spawnFlowgate, type Flowgate } from './fixtures/egress.js';
import { pcapRecords, tempDir } from './fixtures/pcap.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const ROOT = join(import.meta.dirname, '..');
const CHROMIUM = '/usr/bin/chromium';
const CAPTURE = join(NDPI_PCAPS, '1kxun.pcap');
const HAVE = existsSync(CHROMIUM) && existsSync(join(WEB_DIR, 'app.js')) && existsSync(CAPTURE);
const RUN = HAVE || !!process.env.CI;
if (!HAVE) console.warn(`test/dashboard.test.ts ${RUN ? 'fails' : 'skipped'}: needs ${CHROMIUM} (Debian's chromium), the built dashboard (${WEB_DIR}) and ${CAPTURE}`);

const SHOTS = join(ROOT, 'test-artifacts', 'dashboard');

/** Console errors and uncaught exceptions of a page, gathered for the assertions. */
function watch(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

const value = async (page: Page, testid: string) => {
  const el = page.locator(`[data-testid="${testid}"]`);
  await expect.poll(async () => el.getAttribute('data-value'), { timeout: 10_000 }).not.toBe('');
  return Number(await el.getAttribute('data-value'));
};
/** data-value of a column of every body row of a table */
const column = (page: Page, table: string, col: string) => page.locator(`[data-testid="${table}"] tbody td[data-col="${col}"]`).evaluateAll((tds) => tds.map((t) => t.getAttribute('data-value')));
const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

async function login(page: Page, base: string, password = ADMIN_PASSWORD, username = 'admin'): Promise<void> {
  await page.goto(`${base}/`);
  await page.fill('input[name=username]', username);
  await page.fill('input[name=password]', password);
  await page.click('form#login button[type=submit]');
}

describe.skipIf(!RUN)('dashboard in chromium', () => {
  let svc: ApiService;
  let browser: Browser;
  let ctx: BrowserContext;
  let page: Page;
  let errors: string[];
  const api = async (path: string, query: Record<string, string | number> = {}, pro = false) => {
    const r = await svc.call(`/lua/${pro ? 'pro/' : ''}rest/v2/${path}.lua`, { query });
    expect(r.body?.rc, r.text).toBe(0);
    return r.body;
  };

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    svc = await startApi({ files: [CAPTURE], timeseries: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 }, timezoneId: 'UTC' });
    page = await ctx.newPage();
    errors = watch(page);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('serves the dashboard to a browser at / and the JSON pointer to API clients', async () => {
    const html = await fetch(`${svc.url}/`, { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(html.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await html.text()).toContain('/dashboard/app.js');
    const json = await (await fetch(`${svc.url}/`)).json();
    expect(json.openapi).toBe('/lua/rest/v2/openapi.json');
    expect((await fetch(`${svc.url}/dashboard/app.js`)).status).toBe(200);
    // only the built files: no path walking
    expect((await fetch(`${svc.url}/dashboard/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${svc.url}/dashboard/index.html`)).status).toBe(404);
  });

  it('refuses a wrong password, then logs in with the API user (a session cookie)', async () => {
    await login(page, svc.url, 'not-the-password');
    await expect.poll(() => page.locator('[data-testid=login-error]').textContent()).toMatch(/wrong user name or password/i);
    await login(page, svc.url);
    await page.waitForSelector('[data-testid=page-overview]');
    const cookie = (await ctx.cookies()).find((c) => c.name === 'session');
    expect(cookie?.value).toMatch(/\w{16,}/);
    // the cookie is a session of the API: it answers a call on its own
    const r = await svc.call('/lua/rest/v2/get/ntopng/interfaces.lua', { cookie: `session=${cookie!.value}` });
    expect(r.body.rc).toBe(0);
    // the refused login was a 401 the page asked for itself; nothing else went wrong
    expect(errors.filter((e) => !/401/.test(e))).toEqual([]);
    errors.length = 0;
  });

  it('overview: the interface figures, top hosts, top applications and alert counts are the API answers', async () => {
    await page.goto(`${svc.url}/#/`);
    const d = (await api('get/interface/data', { ifid: 0 })).rsp;
    expect(await value(page, 'ov-packets')).toBe(d.packets);
    expect(await value(page, 'ov-bytes')).toBe(d.bytes);
    expect(await value(page, 'ov-hosts')).toBe(d.num_hosts);
    expect(await value(page, 'ov-flows')).toBe(d.num_flows);
    expect(await value(page, 'ov-alerted-flows')).toBe(d.alerted_flows);
    // the page writes packets with separators: what a reader sees is the same number
    expect((await page.locator('[data-testid=ov-packets] .value').textContent())!.replace(/,/g, '')).toBe(String(d.packets));
    const top = (await api('get/host/active', { ifid: 0, perPage: 10, sortColumn: 'traffic', sortOrder: 'desc' })).rsp.data;
    await expect.poll(() => column(page, 'top-hosts', 'bytes')).toEqual(top.map((h: any) => String(h.bytes.total)));
    const apps = (await api('get/interface/l7/stats', { ifid: 0, ndpistats_mode: 'sinceStartup' })).rsp;
    await expect.poll(() => column(page, 'top-apps', 'app')).toEqual(apps.map((a: any) => a.label));
    const sev = (await api('get/alert/severity/counters', { ifid: 0, epoch_begin: 0, epoch_end: Math.floor(Date.now() / 1000) + 60 })).rsp;
    const errorsStored = [...sev['historical-flows'], ...sev.historical].filter((s: any) => s.severity === 'error').reduce((n: number, s: any) => n + Number(s.count), 0);
    expect(errorsStored).toBeGreaterThan(0);
    expect(await value(page, 'ov-alerts-error')).toBe(errorsStored);
    // the live chart took points from the polls
    await expect.poll(async () => Number(await page.locator('[data-testid=ov-chart]').getAttribute('data-points')), { timeout: 15_000 }).toBeGreaterThan(1);
    await shot(page, 'overview');
  }, 60_000);

  it('hosts: paged, sorted and searched by the API, page for page', async () => {
    await page.click('header nav a[href="#/hosts"]');
    await page.waitForSelector('[data-testid=page-hosts]');
    const all = (await api('get/host/active', { ifid: 0, perPage: 25, sortColumn: 'traffic', sortOrder: 'desc' })).rsp;
    expect(all.totalRows).toBeGreaterThan(25);
    expect(await value(page, 'hosts-total')).toBe(all.totalRows);
    await expect.poll(() => column(page, 'hosts', 'ip')).toEqual(all.data.map((h: any) => (h.vlan ? `${h.ip}@${h.vlan}` : h.ip)));
    // sort: a click on Flows sorts descending, a second ascending
    await page.click('[data-testid=hosts] th[data-sort=num_flows]');
    await page.click('[data-testid=hosts] th[data-sort=num_flows]');
    const asc = (await api('get/host/active', { ifid: 0, perPage: 25, sortColumn: 'num_flows', sortOrder: 'asc' })).rsp.data;
    await expect.poll(() => column(page, 'hosts', 'num_flows')).toEqual(asc.map((h: any) => String(h.num_flows.total)));
    const flows = (await column(page, 'hosts', 'num_flows')).map(Number);
    expect(flows).toEqual([...flows].sort((a, b) => a - b));
    // the next page is the API's page 2
    await page.click('[data-testid=hosts-pager] button[data-page=next]');
    const p2 = (await api('get/host/active', { ifid: 0, perPage: 25, currentPage: 2, sortColumn: 'num_flows', sortOrder: 'asc' })).rsp.data;
    await expect.poll(() => page.locator('[data-testid=hosts-page]').textContent()).toBe('2');
    await expect.poll(() => column(page, 'hosts', 'ip')).toEqual(p2.map((h: any) => (h.vlan ? `${h.ip}@${h.vlan}` : h.ip)));
    // search: a network
    await page.fill('[data-testid=hosts-search]', '192.168.0.0/16');
    await page.press('[data-testid=hosts-search]', 'Enter');
    const local = (await api('get/host/active', { ifid: 0, perPage: 25, network_cidr: '192.168.0.0/16' })).rsp;
    expect(local.totalRows).toBeGreaterThan(0);
    expect(local.totalRows).toBeLessThan(all.totalRows);
    await expect.poll(() => page.locator('[data-testid=hosts-total]').getAttribute('data-value')).toBe(String(local.totalRows));
    for (const ip of await column(page, 'hosts', 'ip')) expect(ip).toMatch(/^192\.168\./);
    await shot(page, 'hosts');
    expect(errors).toEqual([]);
    // a bad search is the API's -5 (HTTP 400, which the browser logs), shown, not a crash
    await page.fill('[data-testid=hosts-search]', 'not-a-network');
    await page.press('[data-testid=hosts-search]', 'Enter');
    await expect.poll(() => page.locator('[data-testid=error]').first().textContent()).toMatch(/network_cidr/);
    expect(errors).toEqual([expect.stringMatching(/status of 400/)]);
    errors.length = 0;
  }, 60_000);

  it('host detail: its data, flows, applications and traffic chart are the API answers', async () => {
    const top = (await api('get/host/active', { ifid: 0, perPage: 1, sortColumn: 'traffic', sortOrder: 'desc' })).rsp.data[0];
    await page.goto(`${svc.url}/#/hosts`);
    await page.click(`[data-testid=hosts] td[data-col=ip] a[href="#/host/${top.ip}"]`);
    await page.waitForSelector('[data-testid=page-host]');
    const h = (await api('get/host/data', { ifid: 0, host: top.ip })).rsp;
    expect(await value(page, 'host-bytes-sent')).toBe(h['bytes.sent']);
    expect(await value(page, 'host-bytes-rcvd')).toBe(h['bytes.rcvd']);
    expect(await value(page, 'host-packets-rcvd')).toBe(h['packets.rcvd']);
    expect(await value(page, 'host-score')).toBe(h.score);
    expect(await page.locator('[data-testid=host-mac]').textContent()).toBe(h.mac);
    const fl = (await api('get/flow/active', { ifid: 0, host: top.ip, perPage: 10, sortColumn: 'bytes', sortOrder: 'desc' })).rsp;
    expect(await value(page, 'host-flows-total')).toBe(fl.totalRows);
    await expect.poll(() => column(page, 'host-flows-table', 'bytes')).toEqual(fl.data.map((x: any) => String(x.bytes)));
    const apps = (await api('get/host/l7/stats', { ifid: 0, host: top.ip })).rsp;
    await expect.poll(() => column(page, 'host-apps-table', 'bytes')).toEqual(apps.map((a: any) => String(a.value)));
    await expect.poll(async () => Number(await page.locator('[data-testid=host-chart]').getAttribute('data-points'))).toBeGreaterThan(0);
    await shot(page, 'host');
    expect(errors).toEqual([]);
  }, 60_000);

  it('flows: paged, and filtered by L4 protocol and application as the API filters them', async () => {
    await page.click('header nav a[href="#/flows"]');
    await page.waitForSelector('[data-testid=page-flows]');
    const all = (await api('get/flow/active', { ifid: 0, perPage: 25, sortColumn: 'bytes', sortOrder: 'desc' })).rsp;
    expect(await value(page, 'flows-total')).toBe(all.totalRows);
    await expect.poll(() => column(page, 'flows', 'bytes')).toEqual(all.data.map((x: any) => String(x.bytes)));
    await page.selectOption('[data-testid=flows-l4]', 'UDP');
    const udp = (await api('get/flow/active', { ifid: 0, perPage: 25, sortColumn: 'bytes', sortOrder: 'desc', l4proto: 'UDP' })).rsp;
    expect(udp.totalRows).toBeGreaterThan(0);
    expect(udp.totalRows).toBeLessThan(all.totalRows);
    await expect.poll(() => page.locator('[data-testid=flows-total]').getAttribute('data-value')).toBe(String(udp.totalRows));
    for (const l4 of await column(page, 'flows', 'l4')) expect(l4).toBe('UDP');
    await page.selectOption('[data-testid=flows-l4]', '');
    await page.fill('[data-testid=flows-application]', 'HTTP');
    await page.press('[data-testid=flows-application]', 'Enter');
    const http = (await api('get/flow/active', { ifid: 0, perPage: 25, application: 'HTTP' })).rsp;
    expect(http.totalRows).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-testid=flows-total]').getAttribute('data-value')).toBe(String(http.totalRows));
    await shot(page, 'flows');
    expect(errors).toEqual([]);
  }, 60_000);

  it('alerts: stored flow alerts as the API lists them; a user alert acknowledged, another deleted', async () => {
    await page.goto(`${svc.url}/#/alerts?family=flow&window=all`);
    await page.waitForSelector('[data-testid=page-alerts]');
    const now = Math.floor(Date.now() / 1000) + 60;
    const fl = await api('get/flow/alert/list', { ifid: 0, epoch_begin: 0, epoch_end: now, start: 0, length: 25 });
    expect(fl.recordsTotal).toBeGreaterThan(0);
    expect(await value(page, 'alerts-total')).toBe(fl.recordsTotal);
    await expect.poll(() => column(page, 'alerts', 'type')).toEqual(fl.rsp.records.map((r: any) => String(r.alert_id.value)));
    await shot(page, 'alerts-flow');
    // the logins above are user alerts (the failed one and the session): stored ones can be managed
    const users = () => api('get/user/alert/list', { ifid: 0, epoch_begin: 0, epoch_end: now, length: 25 });
    await expect.poll(async () => (await users()).recordsTotal, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await page.selectOption('[data-testid=alerts-family]', 'user');
    const before = await users();
    await expect.poll(() => page.locator('[data-testid=alerts-total]').getAttribute('data-value')).toBe(String(before.recordsTotal));
    const first = page.locator('[data-testid=alerts] tbody tr').first();
    await first.locator('button[data-action=acknowledge]').click();
    await expect.poll(() => page.locator('[data-testid=alerts-note]').textContent()).toMatch(/Acknowledged/);
    // acknowledged alerts leave the stored (historical) list, as in ntopng
    const acked = await api('get/user/alert/list', { ifid: 0, epoch_begin: 0, epoch_end: now, status: 'acknowledged', length: 25 });
    expect(acked.recordsTotal).toBe(1);
    await expect.poll(async () => (await users()).recordsTotal).toBe(before.recordsTotal - 1);
    await page.locator('[data-testid=alerts] tbody tr').first().locator('button[data-action=delete]').click();
    await expect.poll(() => page.locator('[data-testid=alerts-note]').textContent()).toMatch(/Deleted/);
    await expect.poll(async () => (await users()).recordsTotal).toBe(before.recordsTotal - 2);
    await expect.poll(() => page.locator('[data-testid=alerts-total]').getAttribute('data-value')).toBe(String(before.recordsTotal - 2));
    await shot(page, 'alerts-user');
    expect(errors).toEqual([]);
  }, 60_000);

  it("charts: the range picker asks the API for that range; the totals are the API's", async () => {
    // the busiest host's first minute in the capture's own time, half an hour either side
    const d = (await api('get/host/active', { ifid: 0, perPage: 1, sortColumn: 'traffic', sortOrder: 'desc' })).rsp.data[0];
    await page.goto(`${svc.url}/#/charts`);
    await page.waitForSelector('[data-testid=page-charts]');
    const begin = d.first_seen - 1800;
    const end = d.first_seen + 1800;
    const local = (t: number) => new Date(t * 1000).toISOString().slice(0, 16); // the browser runs in UTC
    await page.fill('[data-testid=charts-begin]', local(begin));
    await page.fill('[data-testid=charts-end]', local(end));
    await page.click('[data-testid=charts-apply]');
    const b = Math.floor(begin / 60) * 60;
    const e = Math.floor(end / 60) * 60;
    await expect.poll(() => page.url()).toContain(`begin=${b}`);
    const ts = (await api('get/timeseries/ts', { ifid: 0, ts_schema: 'iface:traffic_rxtx', ts_query: 'ifid:0', epoch_begin: b, epoch_end: e })).rsp;
    const totals = ts.series.map((s: any) => String(s.statistics.total));
    expect(Number(totals[1])).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-testid=charts-totals] td[data-col=total]').evaluateAll((t) => t.map((x) => x.getAttribute('data-value')))).toEqual(totals);
    const points = ts.series.reduce((n: number, s: any) => n + s.data.filter((v: unknown) => v !== null).length, 0);
    await expect.poll(async () => Number(await page.locator('[data-testid=charts-chart]').getAttribute('data-points'))).toBe(points);
    await shot(page, 'charts');
    expect(errors).toEqual([]);
  }, 60_000);

  it('interfaces and egress: the list and figures are the API answers; no egress target here', async () => {
    await page.click('header nav a[href="#/interfaces"]');
    await page.waitForSelector('[data-testid=page-interfaces]');
    const d = (await api('get/interface/data', { ifid: 0 })).rsp;
    await expect.poll(() => column(page, 'interfaces', 'packets')).toEqual([String(d.packets)]);
    await shot(page, 'interfaces');
    await page.click('header nav a[href="#/egress"]');
    expect((await api('get/interface/egress', { ifid: 0 })).rsp).toEqual([]);
    await page.waitForSelector('[data-testid=egress-none]');
    expect(errors).toEqual([]);
  });

  it('a user without alert rights stays logged in: what the API refuses is said on the page', async () => {
    await addUser(svc, { username: 'viewer', password: 'Viewer-pw-1', allow_alerts: '0' });
    const ctx2 = await browser.newContext({ viewport: { width: 1400, height: 1000 }, timezoneId: 'UTC' });
    const p2 = await ctx2.newPage();
    const errs = watch(p2);
    await login(p2, svc.url, 'Viewer-pw-1', 'viewer');
    await p2.waitForSelector('[data-testid=page-overview]');
    // the interface figures come (every user reads them); the stored alert counts are refused (-3)
    const d = (await api('get/interface/data', { ifid: 0 })).rsp;
    expect(await value(p2, 'ov-packets')).toBe(d.packets);
    await expect.poll(() => p2.locator('[data-testid=ov-alerts] [data-testid=error]').textContent()).toMatch(/alert/i);
    await p2.waitForTimeout(500);
    expect(await p2.locator('[data-testid=login]').count()).toBe(0);
    // the browser logs the refused answers (401); nothing else went wrong
    expect(errs.filter((e) => !/status of 401/.test(e))).toEqual([]);
    await ctx2.close();
  });

  it('logs out: the session ends on the service and the login comes back', async () => {
    const cookie = (await ctx.cookies()).find((c) => c.name === 'session')!.value;
    await page.click('[data-testid=logout]');
    await page.waitForSelector('[data-testid=login]');
    const r = await svc.call('/lua/rest/v2/get/ntopng/interfaces.lua', { cookie: `session=${cookie}` });
    expect(r.body.rc).toBe(-3);
    expect((await ctx.cookies()).find((c) => c.name === 'session')).toBeUndefined();
    expect(errors).toEqual([]);
  });
});

describe.skipIf(!RUN)('dashboard egress page on the flowgate command', () => {
  const tmp = tempDir('flowgate-dash-egress-');
  let svc: Flowgate;
  let base = '';
  let browser: Browser;
  const PW = 'Dash-admin-1';

  beforeAll(async () => {
    const rules = join(tmp.dir, 'rules.ini');
    writeFileSync(rules, '[egress.aggregated]\ndefault = forward\n[egress.aggregated.protocol]\nHTTP = discard\n[egress.aggregated.subnet]\n192.168.5.0/24 = discard\n');
    const port = await freePort();
    svc = spawnFlowgate(['-q', '-i', CAPTURE, '--aggregated-egress', join(tmp.dir, 'out.pcap'), '--egress-rules', rules, '--http-port', String(port), '--bind', '127.0.0.1', '--egress-port', '0', '--data-dir', join(tmp.dir, 'data'), '--admin-password', PW]);
    base = (await svc.waitFor(/monitoring API on (http:\/\/[^/\s]+)\//, 30_000))[1]!;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
    tmp.cleanup();
  });

  it('shows the rules in force and their counters as the engine holds them', async () => {
    const auth = { authorization: `Basic ${Buffer.from(`admin:${PW}`).toString('base64')}` };
    const get = async (p: string) => (await (await fetch(`${base}/lua/rest/v2/${p}`, { headers: auth })).json()) as any;
    // the replay is over when the interface's packets stop moving
    let last = -1;
    for (let i = 0; i < 60; i++) {
      const n = (await get('get/interface/data.lua?ifid=0')).rsp.packets;
      if (n === last && n > 0) break;
      last = n;
      await new Promise((r) => setTimeout(r, 500));
    }
    const eg = (await get('get/interface/egress.lua?ifid=0')).rsp;
    expect(eg).toHaveLength(1);
    const t = eg[0];
    // every packet of the capture was offered to the queue and decided on once
    expect(t.packets).toBe(last);
    expect(t.forwarded + t.discarded).toBe(t.packets);
    expect(t.policies.map((p: any) => [p.scope, p.match ?? '', p.action])).toEqual([
      ['default', '', 'forward'],
      ['subnet', '192.168.5.0/24', 'discard'],
      ['protocol', 'HTTP', 'discard'],
    ]);
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = watch(page);
    await login(page, base, PW);
    await page.waitForSelector('[data-testid=page-overview]');
    await page.goto(`${base}/#/egress`);
    await page.waitForSelector('[data-testid=egress-aggregated-0]');
    expect(await value(page, 'egress-aggregated-0-packets')).toBe(t.packets);
    expect(await value(page, 'egress-aggregated-0-forwarded')).toBe(t.forwarded);
    expect(await value(page, 'egress-aggregated-0-discarded')).toBe(t.discarded);
    expect(await column(page, 'egress-aggregated-0-rules', 'match')).toEqual(['', '192.168.5.0/24', 'HTTP']);
    expect(await column(page, 'egress-aggregated-0-rules', 'packets')).toEqual(t.policies.map((p: any) => String(p.packets)));
    expect(t.policies.reduce((n: number, p: any) => n + p.packets, 0)).toBe(t.packets);
    await shot(page, 'egress');
    expect(errors).toEqual([]);
    // the forwarded figure is what the output file holds once the service has stopped
    await svc.stop();
    expect(pcapRecords(readFileSync(join(tmp.dir, 'out.pcap'))).records).toHaveLength(t.forwarded);
  }, 60_000);
});
