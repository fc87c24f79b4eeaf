// edit/monitor/incr_flows and incr_hosts: each interface's table doubles
// (the engine rebuilds it, keeping what it holds), after a check that the
// machine can hold the new tables beside the old ones.
import { freemem } from 'node:os';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Engine } from '../ts/bindings/engine.js';
import { Interfaces } from '../ts/services/interfaces.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

describe('incr_flows / incr_hosts', () => {
  const tmp = tempDir('flowgate-limits-');
  let s: ApiService;
  beforeAll(async () => {
    const pk = Array.from({ length: 50 }, (_, i) => ({ tsNs: sec(1_700_000_000 + i / 100), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: `10.0.0.${i + 1}`, dst: '10.0.1.1', proto: IPPROTO.UDP }, udp({ sport: 1000 + i, dport: 2000 }, Buffer.from('x')))) }));
    s = await startApi({ files: [tmp.file('fifty.pcap', pcap(pk))], engine: { maxFlows: 1024, maxHosts: 512 } });
  }, 60_000);
  afterAll(async () => {
    await s?.close();
    tmp.cleanup();
  });

  it('doubles each table and keeps its contents', async () => {
    const before = s.ifaces.list[0]!.engine.stats();
    expect([before.max_flows, before.max_hosts, before.num_flows]).toEqual([1024, 512, 50]);
    // what the check compares: twice the table's bytes against the memory available
    expect(2 * before.flow_reserved_bytes).toBeLessThan(freemem() * 0.8);
    const f = await s.call(v2('edit/monitor/incr_flows'), { method: 'POST' });
    expect(f.body, f.text).toMatchObject({ rc: 0, rsp: [{ ifid: 0, max_num_flows: 2048 }] });
    const h = await s.call(v2('edit/monitor/incr_hosts'), { method: 'POST' });
    expect(h.body, h.text).toMatchObject({ rc: 0, rsp: [{ ifid: 0, max_num_hosts: 1024 }] });
    const after = s.ifaces.list[0]!.engine.stats();
    expect([after.max_flows, after.max_hosts, after.num_flows, after.num_hosts]).toEqual([2048, 1024, 50, before.num_hosts]);
    // every flow array doubles; at these small sizes each is rounded up to whole pages, which
    // keeps the ratio a little under 2 (1.89 at 1,024 → 2,048 flows)
    expect(after.flow_reserved_bytes).toBeGreaterThan(1.85 * before.flow_reserved_bytes);
    // interface data shows what full tables refused (none here)
    const d = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(d.body.rsp.refused).toEqual({ flows: 0, hosts: 0, macs: 0, host_l7: 0, host_contacts: 0, host_side: 0, flow_info: 0, flow_meta: 0, flow_score: 0, flow_iec: 0 });
  });

  it('doubling again and again stops with an error before the tables outgrow the memory; the service runs on', async () => {
    // Tables reserve address space and fill it as entries are used: what the
    // check weighs is the reservation (as if every slot were used), not the
    // few pages 50 flows touched.
    const engine = () => s.ifaces.list[0]!.engine;
    for (const what of ['flows', 'hosts'] as const) {
      const max = (x: ReturnType<Engine['stats']>) => (what === 'flows' ? x.max_flows : x.max_hosts);
      let last = engine().stats(), refused = false;
      for (let k = 0; k < 30 && !refused; k++) {
        const r = await s.call(v2(`edit/monitor/incr_${what}`), { method: 'POST' });
        expect(r.status, r.text).toBeLessThan(500);
        const now = engine().stats();
        if (r.body.rc !== 0) {
          expect(r.body).toMatchObject({ rc: -7, rc_str: 'BAD_FORMAT' });
          expect(r.body.rc_str_detail).toMatch(/not enough memory|at its largest|cannot be doubled/);
          expect(max(now)).toBe(max(last)); // unchanged
          refused = true;
        } else {
          expect(max(now)).toBe(2 * max(last));
          expect(now.num_flows).toBe(50);
        }
        last = now;
      }
      expect(refused).toBe(true);
      expect(max(engine().stats())).toBeLessThanOrEqual(1 << 26);
    }
    const d = await s.call(v2('get/interface/data'), { query: { ifid: 0 } });
    expect(d.body.rc).toBe(0);
    expect(d.body.rsp.num_flows).toBe(50);
  }, 120_000);
});

describe('full tables are shown and logged', () => {
  const tmp = tempDir('flowgate-refused-');
  afterAll(() => tmp.cleanup());

  it('interface data counts the refused flows; a line is logged at the first minute with refusals, then the rate', async () => {
    // 40 flows in minute 0, 30 more in minute 1 (distinct ports), a table of 16 flows that never expire
    const pk = [
      ...Array.from({ length: 40 }, (_, i) => ({ tsNs: sec(1_699_999_200 + i / 10), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.1.1', proto: IPPROTO.UDP }, udp({ sport: 1000 + i, dport: 2000 }, Buffer.from('x')))) })),
      ...Array.from({ length: 30 }, (_, i) => ({ tsNs: sec(1_699_999_260 + i / 10), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.1.1', proto: IPPROTO.UDP }, udp({ sport: 3000 + i, dport: 2000 }, Buffer.from('x')))) })),
    ];
    const lines: string[] = [];
    const ifaces = new Interfaces([{ source: tmp.file('many.pcap', pcap(pk)) }], { maxFlows: 16, flowIdleSec: 1e9 });
    ifaces.start(null, (l) => lines.push(l));
    const e = ifaces.list[0]!.engine;
    expect((await e.waitDone()).state).toBe('done');
    const refused = e.stats().flow_table_full;
    ifaces.close();
    // 70 flows for 16 entries
    expect(refused).toBe(70 - 16);
    const flowLines = lines.filter((l) => l.includes('flow table full'));
    expect(flowLines[0]).toBe(`flowgate: ifid 0: flow table full: ${40 - 16} flows refused (raise --max-flows or POST edit/monitor/incr_flows) in the last minute (first refusal) (${40 - 16} since start)`);
    expect(flowLines[1]).toMatch(/: 30 flows refused .* in the last minute \(54 since start\)$/);
  });
});
