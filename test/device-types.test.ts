// MAC device types and the unexpected_gateway host check, on a capture built
// here. ntopng's rules (Mac::incUses, LocalHost::checkGatewayInfo,
// Mac::checkDeviceTypeFromManufacturer's virtual machine OUIs,
// UnexpectedGateway::periodicUpdate): a MAC more than 8 hosts were seen
// behind is a networking device; a local host with such a MAC that the
// network configuration does not list as a gateway raises the alert. The
// expected types are worked out by hand from the hosts each MAC fronts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RecordingSink } from './fixtures/alert-sink.js';
import { startApi, v2, type ApiService } from './fixtures/api.js';
import { dns, dnsName } from './fixtures/apps.js';
import { ETH, IPPROTO, eth, ipv4, mac, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir, type Packet } from './fixtures/pcap.js';

const tmp = tempDir('flowgate-devtype-');
const sink = new RecordingSink();
let s: ApiService;

// routers: R1 (listed as the gateway) fronts 8 remote hosts, R2 8, R3 only 7; a client per router; a VirtualBox guest
const R1 = mac('02:00:00:00:0a:01'), R2 = mac('02:00:00:00:0a:02'), R3 = mac('02:00:00:00:0a:03');
const C1 = mac('02:00:00:00:0c:01'), C2 = mac('02:00:00:00:0c:02'), C3 = mac('02:00:00:00:0c:03');
const VM = mac('08:00:27:12:34:56');
// devices that announce their services over mDNS (Flow.cpp's rules), and one that only asks
const TV = mac('02:00:00:00:0d:01'), PRN = mac('02:00:00:00:0d:02'), NAS = mac('02:00:00:00:0d:03'), ASK = mac('02:00:00:00:0d:04');
const TV_IP = '192.168.7.60', PRN_IP = '192.168.7.61', NAS_IP = '192.168.7.62', ASK_IP = '192.168.7.63';
const MDNS_MAC = mac('01:00:5e:00:00:fb');
const GW1 = '192.168.7.1', GW2 = '192.168.7.254', GW3 = '192.168.7.253';
const CL1 = '192.168.7.10', CL2 = '192.168.7.11', CL3 = '192.168.7.12', GUEST = '192.168.7.50';
const T0 = 1_700_000_000;

beforeAll(async () => {
  const p: Packet[] = [];
  let n = 0;
  const push = (t: number, dst: Buffer, src: Buffer, sip: string, dip: string) =>
    p.push({ tsNs: sec(t) + BigInt(n++) * 1000n, data: eth(dst, src, ETH.IPV4, ipv4({ src: sip, dst: dip, proto: IPPROTO.UDP }, udp({ sport: 40000 + n, dport: 53 }, Buffer.from('q')))) });
  // each router's own address talks to its client first (the router's host: one host behind its MAC)
  for (const [r, gw, c, cl] of [[R1, GW1, C1, CL1], [R2, GW2, C2, CL2], [R3, GW3, C3, CL3]] as const) push(T0, c, r, gw, cl);
  // the clients reach remote servers through their router (the remote hosts are behind its MAC)
  for (let i = 0; i < 8; i++) push(T0 + 1, R1, C1, CL1, `198.51.100.${i + 1}`);
  for (let i = 0; i < 8; i++) push(T0 + 1, R2, C2, CL2, `203.0.113.${i + 1}`);
  for (let i = 0; i < 7; i++) push(T0 + 1, R3, C3, CL3, `192.0.2.${i + 1}`);
  push(T0 + 2, C1, VM, GUEST, CL1);
  const mdns = (src: Buffer, ip: string, flags: number, names: string[]) =>
    p.push({
      tsNs: sec(T0 + 3) + BigInt(n++) * 1000n,
      data: eth(MDNS_MAC, src, ETH.IPV4, ipv4({ src: ip, dst: '224.0.0.251', proto: IPPROTO.UDP }, udp({ sport: 5353, dport: 5353 }, dns({ id: 0, flags, answers: names.map((x) => ({ name: dnsName(x), type: 16, rdata: Buffer.from([0]) })) })))),
    });
  // a device-info record says nothing; the AirPlay service after it makes a multimedia device (11)
  mdns(TV, TV_IP, 0x8400, ['LivingRoom._device-info._tcp.local', 'LivingRoom._airplay._tcp.local']);
  mdns(PRN, PRN_IP, 0x8400, ['Office._pdl-datastream._tcp.local']); // printer (1)
  mdns(NAS, NAS_IP, 0x8400, ['_smb._tcp.local']); // NAS (10)
  mdns(ASK, ASK_IP, 0x0000, ['Kitchen._airplay._tcp.local']); // a query: nothing
  // the minute ends: the host checks run
  push(T0 + 125, R1, C1, CL1, '198.51.100.1');
  s = await startApi({
    files: [tmp.file('gw.pcap', pcap(p))],
    alerts: sink,
    configure: async (checks, checking) => {
      await checks.setEnabled('host', 'unexpected_gateway', true);
      await checking.network.set({ gateway_list: `${GW1}` });
    },
  });
});
afterAll(async () => {
  await s?.close();
  tmp.cleanup();
});

const devtype = async (host: string) => {
  const r = await s.call(v2('get/host/data'), { query: { ifid: 0, host } });
  expect(r.body.rc, r.text).toBe(0);
  return r.body.rsp.devtype as number;
};

describe('MAC device types', () => {
  it('a MAC with more than 8 hosts behind it is networking (8); 8 hosts are not enough; a VirtualBox OUI is a workstation (3)', async () => {
    // R1 and R2: their own address + 8 remote hosts = 9; R3: 1 + 7 = 8
    expect(await devtype(GW1)).toBe(8);
    expect(await devtype(GW2)).toBe(8);
    expect(await devtype(GW3)).toBe(0);
    expect(await devtype(CL1)).toBe(0);
    expect(await devtype(GUEST)).toBe(3);
  });

  it("the services an mDNS response announces tell its sender's type; a query tells nothing", async () => {
    expect(await devtype(TV_IP)).toBe(11);
    expect(await devtype(PRN_IP)).toBe(1);
    expect(await devtype(NAS_IP)).toBe(10);
    expect(await devtype(ASK_IP)).toBe(0);
  });
});

describe('unexpected_gateway', () => {
  it('engages for the local networking host the network configuration does not list, not for the listed one', () => {
    const gw = sink.engaged('host', 0).filter((a) => a.alertId === 8);
    expect(gw.map((a) => a.entityVal)).toEqual([GW2]);
    expect(gw[0]).toMatchObject({ score: 100, fields: { ip: GW2, is_client: 1, is_server: 0, alert_category: 3 } });
  });
});
