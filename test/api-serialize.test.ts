// Answers written by a route's compiled serializer (fast-json-stringify,
// ts/api/serialize.ts) must be byte for byte what JSON.stringify writes of
// the same value, carry exactly the fields their schema (= the OpenAPI
// document) declares, and escape hostile text (an interface named after a
// capture file with quotes, backslashes, control and non-ASCII characters).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';

import { InterfaceDataV0, InterfaceDataV1, InterfaceDataV2 } from '../ts/api/monitoring/interfaces.js';
import { startApi, v0, v1, v2, type ApiService } from './fixtures/api.js';
import { NDPI_PCAPS } from './fixtures/util.js';

const NAME = 'we"ird\\ ñame\ttab\u2028.pcap';
let s: ApiService;
beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'fg-serialize-')), NAME);
  copyFileSync(join(NDPI_PCAPS, '1kxun.pcap'), file);
  s = await startApi({ files: [file] });
});
afterAll(async () => {
  await s?.close();
});

describe('compiled serializers', () => {
  it.each([
    ['v0', v0, InterfaceDataV0],
    ['v1', v1, InterfaceDataV1],
    ['v2', v2, InterfaceDataV2],
  ] as const)('interface data %s: JSON.stringify-identical, exactly the schema fields, names escaped', async (_v, mk, schema) => {
    const r = await s.call(mk('get/interface/data'), { query: { ifid: 0 } });
    expect(r.status).toBe(200);
    expect(r.text).toBe(JSON.stringify(JSON.parse(r.text)));
    const data = mk === v0 ? r.body : r.body.rsp;
    expect(data.ifname.endsWith(NAME)).toBe(true);
    // strict: no field beyond the schema's, none missing, every type right
    const parsed = (schema as z.ZodObject).strict().safeParse(data);
    expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
    expect(data.bytes).toBeGreaterThan(0);
  });

  it('cpu_states are percentages from the first answer on (since boot, then between readings)', async () => {
    const r = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    const st = r.body.rsp.system_host_stats.cpu_states as Record<string, number>;
    const sum = Object.values(st).reduce((a, b) => a + b, 0);
    expect(sum).toBeGreaterThan(99.9);
    expect(sum).toBeLessThan(100.1);
    expect(st.idle + st.user + st.system).toBeGreaterThan(0);
  });

  it('the OpenAPI document declares the same answer schema', async () => {
    const doc = (await s.call('/lua/rest/v2/openapi.json')).body;
    const ok = doc.paths['/lua/rest/v2/get/interface/data.lua'].get.responses['200'].content['application/json'].schema;
    expect(ok.required).toEqual(['rc', 'rc_str', 'rc_str_hr', 'rsp']);
    expect(Object.keys(ok.properties.rsp.properties).sort()).toEqual(Object.keys(InterfaceDataV2.shape).sort());
    const v0doc = doc.paths['/lua/rest/get/interface/data.lua'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(v0doc.properties).sort()).toEqual(Object.keys(InterfaceDataV0.shape).sort());
  });
});
