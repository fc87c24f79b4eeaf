// Both APIs over HTTPS when a certificate is given (v2 basic auth over TLS),
// and the dashboard behind the same option.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { WEB_DIR } from '../ts/api/dashboard.js';

import { startEgressApi, startMonitoringApi, type EgressApi, type MonitoringApi } from '../ts/cli/serve.js';
import { Interfaces } from '../ts/services/interfaces.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const dir = mkdtempSync(join(tmpdir(), 'flowgate-https-'));
let ifaces: Interfaces;
let api: MonitoringApi;
let egress: EgressApi;

function get(url: string, auth: string): Promise<{ status: number; body: string; cert: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false, headers: { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } }, (res) => {
      const cert = String((res.socket as import('node:tls').TLSSocket).getPeerCertificate().subject?.CN ?? '');
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, cert }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=flowgate-test',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  ifaces = new Interfaces([{ source: join(NDPI_PCAPS, '1kxun.pcap') }]);
  ifaces.start();
  await ifaces.get(0)!.engine.waitDone();
  const tls = { tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem') };
  api = await startMonitoringApi(ifaces, { port: 0, bind: '127.0.0.1', dataDir: join(dir, 'data'), adminPassword: 'pw-https', print: () => {}, ...tls });
  egress = await startEgressApi({ port: 0, bind: '127.0.0.1', store: api.store, dataDir: join(dir, 'data'), product: 'cento', layout: { aggregated: 1, balanced: 0, bridge: false }, engine: null, print: () => {}, ...tls });
});
afterAll(async () => {
  await egress?.close();
  await api?.close();
  ifaces?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('the monitoring API answers over TLS with the given certificate', async () => {
  expect(api.url.startsWith('https://')).toBe(true);
  const r = await get(`${api.url}/lua/rest/v2/get/interface/data.lua?ifid=0`, 'admin:pw-https');
  expect(r.cert).toBe('flowgate-test');
  expect(r.status).toBe(200);
  expect(JSON.parse(r.body).rsp.packets).toBe(ifaces.get(0)!.engine.stats().packets);
  expect((await get(`${api.url}/lua/rest/v2/get/interface/data.lua?ifid=0`, 'admin:wrong')).status).toBe(401);
});

it('the egress API answers over TLS (and still wants credentials)', async () => {
  expect(egress.url.startsWith('https://')).toBe(true);
  const r = await get(`${egress.url}/egress/bridge/default`, 'nobody:x');
  expect(r.cert).toBe('flowgate-test');
  expect(r.status).toBe(401);
});

// The dashboard behind the same HTTPS option: a browser logs in over TLS and its session cookie is Secure.
const CHROMIUM = '/usr/bin/chromium';
const BROWSER = existsSync(CHROMIUM) && existsSync(join(WEB_DIR, 'app.js'));
it.skipIf(!BROWSER && !process.env.CI)('the dashboard logs in over TLS with a Secure session cookie', async () => {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const ctx = await browser.newContext({ ignoreHTTPSErrors: true });
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${api.url}/`);
    await page.fill('input[name=username]', 'admin');
    await page.fill('input[name=password]', 'pw-https');
    await page.click('form#login button[type=submit]');
    const packets = page.locator('[data-testid=ov-packets]');
    await expect.poll(() => packets.getAttribute('data-value'), { timeout: 10_000 }).toBe(String(ifaces.get(0)!.engine.stats().packets));
    const cookie = (await ctx.cookies()).find((c) => c.name === 'session');
    expect(cookie?.secure).toBe(true);
    expect(errors).toEqual([]);
  } finally {
    await browser.close();
  }
}, 60_000);
