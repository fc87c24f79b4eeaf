// edit/monitor/incr_flows and incr_hosts: each interface's table doubles
// (the engine rebuilds it, keeping what it holds), after a check that the
// machine can hold the new tables beside the old ones.
import { freemem } from 'node:os';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
    expect(2 * before.flow_memory_bytes).toBeLessThan(freemem() * 0.8);
    const f = await s.call(v2('edit/monitor/incr_flows'), { method: 'POST' });
    expect(f.body, f.text).toMatchObject({ rc: 0, rsp: [{ ifid: 0, max_num_flows: 2048 }] });
    const h = await s.call(v2('edit/monitor/incr_hosts'), { method: 'POST' });
    expect(h.body, h.text).toMatchObject({ rc: 0, rsp: [{ ifid: 0, max_num_hosts: 1024 }] });
    const after = s.ifaces.list[0]!.engine.stats();
    expect([after.max_flows, after.max_hosts, after.num_flows, after.num_hosts]).toEqual([2048, 1024, 50, before.num_hosts]);
    expect(after.flow_memory_bytes).toBeGreaterThan(before.flow_memory_bytes);
  });
});
