// network_issues: the engine's per-network TCP retransmissions and packets
// (tshark counts the same frames), and the network check's alert on them
// (network_issues.lua: each share, one decimal, of the network's packets
// above its threshold; json as ntopng's alert_network_issues).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, type TrafficBy } from '../ts/bindings/engine.js';
import { ChecksConfig } from '../ts/services/checks/config.js';
import { NetworkChecks } from '../ts/services/checks/network-checks.js';
import { ConfigStore } from '../ts/services/config-store.js';
import { RecordingSink } from './fixtures/alert-sink.js';
import { ETH, IPPROTO, MAC_A, MAC_B, TCPF, eth, ipv4, tcp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';
import { tsharkFields } from './fixtures/tshark.js';

const tmp = tempDir();
const NETS = ['10.1.0.0/16', '10.2.0.0/16'];
const T0 = 1_700_000_000;

function frames(): Buffer {
  const pk: { tsNs: bigint; data: Buffer }[] = [];
  let t = T0;
  const seg = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, ack: number, data = Buffer.alloc(0)) =>
    pk.push({ tsNs: sec((t += 0.01)), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack }, data))) });
  // a connection with its data segments each sent `copies` times, then closed
  const conn = (c: string, s: string, sport: number, segments: number, copies: number) => {
    seg(c, s, sport, 80, TCPF.SYN, 100, 0);
    seg(s, c, 80, sport, TCPF.SYN | TCPF.ACK, 900, 101);
    seg(c, s, sport, 80, TCPF.ACK, 101, 901);
    let seq = 101;
    for (let k = 0; k < segments; k++) {
      for (let n = 0; n < copies; n++) seg(c, s, sport, 80, TCPF.PSH | TCPF.ACK, seq, 901, Buffer.alloc(100, k));
      seq += 100;
      seg(s, c, 80, sport, TCPF.ACK, 901, seq);
    }
    seg(c, s, sport, 80, TCPF.FIN | TCPF.ACK, seq, 901);
    seg(s, c, 80, sport, TCPF.FIN | TCPF.ACK, 901, seq + 1);
    seg(c, s, sport, 80, TCPF.ACK, seq + 1, 902);
  };
  conn('10.1.0.5', '203.0.113.9', 40000, 4, 3); // 10.1/16 to the Internet: 8 retransmissions
  conn('10.1.0.6', '10.2.0.7', 40001, 10, 1); //   between the two networks: none
  conn('10.2.0.8', '10.2.0.9', 40002, 5, 2); //    inside 10.2/16: 5
  return pcap(pk);
}

describe('network_issues', () => {
  let file: string, nets: TrafficBy['networks'];
  let dir: string, store: ConfigStore;
  beforeAll(async () => {
    file = tmp.file('net-issues.pcap', frames());
    const e = new Engine({ files: [file], localNetworks: NETS, flushAtEnd: true });
    e.start();
    expect((await e.waitDone()).state).toBe('done');
    nets = e.trafficBy().networks;
    e.close();
    dir = mkdtempSync(join(tmpdir(), 'flowgate-netissues-'));
    store = new ConfigStore(dir);
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    tmp.cleanup();
  });

  it('per network: the packets with an end in it and its TCP retransmissions, as tshark counts them', async () => {
    for (const [index, cidr] of NETS.entries()) {
      const n = nets.find((x) => x.index === index)!;
      const pkts = await tsharkFields(file, ['frame.number'], `ip.addr == ${cidr}`);
      const retr = await tsharkFields(file, ['frame.number'], `ip.addr == ${cidr} && tcp.analysis.retransmission`);
      expect({ packets: n.packets, retransmissions: n.retransmissions }, cidr).toEqual({ packets: pkts.length, retransmissions: retr.length });
    }
  });

  it('raises the network whose share passes a threshold, with ntopng’s json; released below', async () => {
    const cfg = ChecksConfig.open(store);
    const sink = new RecordingSink();
    const run = new NetworkChecks(cfg, sink);
    const engaged = () => sink.engaged('network', 0).map((a) => [a.entityVal, a.json.retransmissions, a.json.retransmission_threshold]).sort();
    // flows: 3 + 4 × (3 + 1) + 3 = 22 packets (8 resent), 3 + 10 × 2 + 3 = 26, 3 + 5 × (2 + 1) + 3 = 21 (5 resent)
    const n1 = nets.find((x) => x.index === 0)!, n2 = nets.find((x) => x.index === 1)!;
    expect([n1.packets, n1.retransmissions, n2.packets, n2.retransmissions]).toEqual([22 + 26, 8, 26 + 21, 5]);
    run.tick(0, T0 + 60, NETS, [], nets);
    expect(engaged()).toEqual([]); // disabled by default
    await cfg.setEnabled('network', 'network_issues', true);
    run.tick(0, T0 + 120, NETS, [], nets);
    // defaults 15 %: 10.1/16 8 / 48 = 16.7 %, 10.2/16 5 / 47 = 10.6 %
    expect(engaged()).toEqual([['10.1.0.0/16', 16.7, 15]]);
    expect(sink.engaged('network', 0)[0]).toMatchObject({
      family: 'network', entityVal: '10.1.0.0/16', subtype: '10.1.0.0/16', alertId: 4179, score: 100, severity: 5, tstamp: T0 + 120,
      fields: { local_network_id: 0, name: '10.1.0.0/16' },
      json: { alert_generation: { script_key: 'network_issues', subdir: 'network' }, lost: 0, lost_threshold: 15, retransmissions: 16.7, retransmission_threshold: 15, out_of_order: 0, out_of_order_threshold: 15 },
    });
    const conf = (retr: number) => ({ min: { enabled: true, script_conf: { retransmissions: { threshold: retr }, out_of_orders: { threshold: 15 }, packet_loss: { threshold: 15 } } } });
    await cfg.update('network', 'network_issues', conf(10));
    run.tick(0, T0 + 180, NETS, [], nets);
    expect(engaged()).toEqual([['10.1.0.0/16', 16.7, 10], ['10.2.0.0/16', 10.6, 10]]); // an engaged alert takes the run's figures
    await cfg.update('network', 'network_issues', conf(17));
    run.tick(0, T0 + 240, NETS, [], nets);
    expect(engaged()).toEqual([]);
  });
});
