// First contact (hardening): `/` and the printed base URL say where the
// endpoints are (the OpenAPI document, which then lists them), and a path
// that is not an endpoint answers 404 with the same pointer; a browser at
// either is sent to the dashboard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startOnOnePacket } from './fixtures/api.js';

describe('first contact', () => {
  let s: Awaited<ReturnType<typeof startOnOnePacket>>;
  beforeAll(async () => {
    s = await startOnOnePacket();
  }, 60_000);
  afterAll(async () => {
    await s?.cleanup();
  });

  it('/ points at the OpenAPI document, which is served and lists the endpoints', async () => {
    const r = await s.call('/', { user: null });
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('/lua/rest/v2/openapi.json');
    const doc = await s.call(r.body.openapi);
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths)).toContain('/lua/rest/v2/get/interface/data.lua');
  });

  it('the base URL answers the pointer (a browser goes to the dashboard); unknown paths answer 404 with it', async () => {
    const base = await s.call('/lua/rest/v2/');
    expect(base.status).toBe(200);
    expect(base.body.rc).toBe(0);
    expect(base.body.rsp.openapi).toBe('/lua/rest/v2/openapi.json');
    const browser = await s.call('/lua/rest/v2', { headers: { accept: 'text/html' } });
    // redirected to / (fetch follows), where the dashboard's page is served (built by npm install)
    expect(browser.status).toBe(200);
    expect(browser.headers.get('content-type')).toMatch(/text\/html/);
    const nowhere = await s.call('/lua/rest/v2/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.rc).toBe(-1);
    expect(nowhere.body.rc_str_detail).toMatch(/openapi\.json/);
    const other = await s.call('/nowhere');
    expect(other.status).toBe(404);
    expect(other.body).toMatchObject({ error: 'not found', openapi: '/lua/rest/v2/openapi.json' });
  });
});
