// Prototype names as data (hardening): parameters are read into objects
// without a prototype and the names __proto__ / constructor / prototype are
// refused (-5) wherever parameters come from — query, form, multipart and
// JSON bodies, JSON held in a parameter — and tables keyed by a parameter
// (sortColumn, alert_family) answer only their own entries: -5, never a 500
// and never an inherited value (a JSON body's __proto__ once made an
// unprivileged user an administrator).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startOnOnePacket, v2 } from './fixtures/api.js';

describe('prototype names in parameters', () => {
  let s: Awaited<ReturnType<typeof startOnOnePacket>>;
  beforeAll(async () => {
    s = await startOnOnePacket({ history: true });
  }, 60_000);
  afterAll(async () => {
    await s?.cleanup();
  });

  const user = { username: 'mallory', full_name: 'M', password: 'Mallory-pass-1', confirm_password: 'Mallory-pass-1', user_role: 'unprivileged' };

  it('a JSON body with __proto__ is refused and creates nobody (it once created an administrator)', async () => {
    const body = `{"__proto__": {"user_role": "administrator", "allow_pcap_download": "1"}, ${JSON.stringify(user).slice(1, -1).replace('"user_role":"unprivileged",', '')}}`;
    const r = await s.call(v2('add/monitor/user'), { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect([r.status, r.body.rc], r.text).toEqual([400, -5]);
    // nobody by that name: the credentials do not work
    const who = await s.call(v2('get/interface/data'), { user: 'mallory', pw: user.password, query: { ifid: 0 } });
    expect(who.status).toBe(401);
    // nested too
    const nested = await s.call(v2('add/monitor/user'), { method: 'POST', json: { ...user, extra: JSON.parse('{"__proto__": {"x": 1}}') } });
    // (JSON.parse makes __proto__ an own key; json sends it as such)
    expect(nested.body.rc).toBe(-5);
  });

  it('the names are refused from the query, a form and a multipart body', async () => {
    for (const name of ['__proto__', 'constructor', 'prototype']) {
      const q = await s.call(`${v2('get/interface/data')}?ifid=0&${name}=1`);
      expect([q.status, q.body.rc], `query ${name}`).toEqual([400, -5]);
      const f = await s.call(v2('add/monitor/user'), { method: 'POST', form: { ...user, [name]: 'x' } });
      expect([f.status, f.body.rc], `form ${name}`).toEqual([400, -5]);
      const boundary = 'XyZ';
      const mp = [`--${boundary}`, `Content-Disposition: form-data; name="ifid"`, '', '0', `--${boundary}`, `Content-Disposition: form-data; name="${name}"`, '', 'x', `--${boundary}--`, ''].join('\r\n');
      const m = await s.call(v2('get/interface/data'), { method: 'POST', body: mp, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
      expect(m.body.rc, `multipart ${name}`).toBe(-5);
    }
  });

  it('multipart forms: a browser-style one works (mixed-case boundary), a broken one is 400', async () => {
    const boundary = '----WebKitFormBoundaryQ7xZ';
    const mp = [`--${boundary}`, 'Content-Disposition: form-data; name="ifid"', '', '0', `--${boundary}--`, ''].join('\r\n');
    const ok = await s.call(v2('get/interface/data'), { method: 'POST', body: mp, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
    expect([ok.status, ok.body.rc], ok.text).toEqual([200, 0]);
    for (const type of ['multipart/form-data', `multipart/form-data; boundary=other`]) {
      const bad = await s.call(v2('get/interface/data'), { method: 'POST', body: mp, headers: { 'content-type': type } });
      expect([bad.status, bad.body.rc], type).toEqual([400, -7]);
    }
  });

  it('tables keyed by a parameter answer only their own entries: -5, not 500', async () => {
    for (const col of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'column___proto__']) {
      for (const path of ['get/host/active', 'get/flow/active']) {
        const r = await s.call(v2(path), { query: { ifid: 0, sortColumn: col } });
        expect([r.status, r.body.rc], `${path} sortColumn=${col}`).toEqual([400, -5]);
      }
      const a = await s.call(v2('get/alert/list/alerts'), { query: { ifid: 0, alert_family: col.replace('column_', ''), epoch_begin: 0, epoch_end: 1 } });
      expect([a.status, a.body.rc], `alert_family=${col}`).toEqual([400, -5]);
    }
    // JSON held in a parameter: set/checks/config's JSON with a nested __proto__
    const c = await s.call(v2('set/checks/config'), { method: 'POST', form: { JSON: '{"0": {"config": {"__proto__": {"x": 1}}, "filters": {}}}' } });
    expect(c.body.rc).toBe(-5);
    // and what is valid still works
    const ok = await s.call(v2('get/host/active'), { query: { ifid: 0, sortColumn: 'column_ip' } });
    expect(ok.body.rc, ok.text).toBe(0);
  });
});
