// First contact (hardening): `/` and the printed base URL say where the
// endpoints are (the OpenAPI document, which then lists them), and a path
// that is not an endpoint answers 404 with the same pointer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

describe('first contact', () => {
  const tmp = tempDir('flowgate-first-');
  let s: ApiService;
  beforeAll(async () => {
    const file = tmp.file('one.pcap', pcap([{ tsNs: sec(1_700_000_000), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1000, dport: 2000 }, Buffer.from('x')))) }]));
    s = await startApi({ files: [file] });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('/ points at the OpenAPI document, which is served and lists the endpoints', async () => {
    const r = await s.call('/', { user: null });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('/lua/rest/v2/openapi.json');
    const doc = await s.call(r.body.openapi);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain('/lua/rest/v2/get/interface/data.lua');
  });

  it('the base URL and unknown paths answer 404 with the pointer', async () => {
    const base = await s.call('/lua/rest/v2/');
    expect(base.status).toBe(404);
    expect(base.body.rc).toBe(-1);
    expect(base.body.rc_str_hr).toMatch(/openapi\.json/);
    const other = await s.call('/nowhere');
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ error: 'not found', openapi: '/lua/rest/v2/openapi.json' });
  });
});
