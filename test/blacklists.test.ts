// Blacklisted hosts as ntopng has them (IpAddress::reloadBlacklist: an
// address a custom category list puts in Malware): the category's networks
// set as edit/category/category sets them, frames built here replayed, and
// host data, the host list's blacklisted mode, the flow list, the hosts'
// num_blacklisted_flows and the three blacklist flow checks must follow the
// flows written below, worked out by hand from ntopng's rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApi, v2, type ApiService, type StartOptions } from './fixtures/api.js';
import { eth, ETH, IPPROTO, ipv4, MAC_A, MAC_B, tcp, TCPF } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

const MALWARE = 100;
const BAD = '203.0.113.66', BAD_NET = '203.0.113.64/28', NEAR = '203.0.113.80'; // NEAR: just outside the /28
const LSRV = '192.168.3.10', LCLI = '192.168.3.20', GOOD = '198.51.100.7';

function frames(): Buffer {
  const pk: { tsNs: bigint; data: Buffer }[] = [];
  let t = 1_700_000_000;
  const seg = (src: string, dst: string, sport: number, dport: number, flags: number, seq: number, ack: number, data = Buffer.alloc(0)) =>
    pk.push({ tsNs: sec((t += 0.01)), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src, dst, proto: IPPROTO.TCP }, tcp({ sport, dport, flags, seq, ack }, data))) });
  const session = (c: string, cp: number, sv: string, sp: number) => {
    seg(c, sv, cp, sp, TCPF.SYN, 100, 0);
    seg(sv, c, sp, cp, TCPF.SYN | TCPF.ACK, 500, 101);
    seg(c, sv, cp, sp, TCPF.ACK, 101, 501);
    seg(c, sv, cp, sp, TCPF.PSH | TCPF.ACK, 101, 501, Buffer.from('hello there'));
    seg(sv, c, sp, cp, TCPF.PSH | TCPF.ACK, 501, 112, Buffer.from('general kenobi'));
  };
  session(BAD, 40000, LSRV, 2222); // 1. a blacklisted client reaches a local server
  session(LCLI, 40001, BAD, 4444); // 2. a local client reaches a blacklisted server
  session(LCLI, 40002, GOOD, 4444); // 3. nothing blacklisted
  session(LCLI, 40003, NEAR, 4444); // 4. near miss: outside the blacklisted network
  return pcap(pk);
}

const tmp = tempDir('flowgate-bl-');
const file = tmp.file('bl.pcap', frames());
const withBlacklist = (o: Partial<StartOptions>) =>
  startApi({
    files: [file],
    ...o,
    configure: async (_c, checking) => {
      await checking.customApps.editCategory(MALWARE, BAD_NET, undefined);
    },
  });
let live: ApiService, ended: ApiService;
beforeAll(async () => {
  live = await withBlacklist({});
  ended = await withBlacklist({ engine: { flushAtEnd: true, periodicDumpSec: 0 }, history: true });
}, 60_000);
afterAll(async () => {
  // the category rules are the process's: leave none behind
  await live?.checking.customApps.editCategory(MALWARE, '', undefined);
  await live?.close();
  await ended?.close();
  tmp.cleanup();
});

const ok = (r: { body: any; text: string }) => {
  expect(r.body?.rc, r.text.slice(0, 300)).toBe(0);
  return r.body.rsp;
};
const hostData = async (host: string) => ok(await live.call(v2('get/host/data'), { query: { ifid: 0, host } }));

describe('blacklisted hosts', () => {
  it('host data: is_blacklisted for an address inside the Malware networks only', async () => {
    expect((await hostData(BAD)).is_blacklisted).toBe(true);
    for (const h of [NEAR, GOOD, LSRV, LCLI]) expect((await hostData(h)).is_blacklisted, h).toBe(false);
  });

  it('the host list: mode=blacklisted lists it alone, and every row says whether it is', async () => {
    const bl = ok(await live.call(v2('get/host/active'), { query: { ifid: 0, mode: 'blacklisted' } }));
    expect(bl.data.map((h: any) => h.ip)).toEqual([BAD]);
    const all = ok(await live.call(v2('get/host/active'), { query: { ifid: 0, perPage: 100 } }));
    expect(all.data.filter((h: any) => h.is_blacklisted).map((h: any) => h.ip)).toEqual([BAD]);
  });

  it('the flow list marks the blacklisted end of each flow', async () => {
    const flows = ok(await live.call(v2('get/flow/active'), { query: { ifid: 0, perPage: 100 } })).data as any[];
    const marks = flows.map((f) => [f.client.ip, f.server.ip, f.client.is_blacklisted, f.server.is_blacklisted]).sort();
    expect(marks).toEqual(
      [
        [BAD, LSRV, true, false],
        [LCLI, BAD, false, true],
        [LCLI, GOOD, false, false],
        [LCLI, NEAR, false, false],
      ].sort(),
    );
  });

  it('num_blacklisted_flows of local hosts: a blacklisted client counts on its server, a blacklisted server on its client', async () => {
    expect((await hostData(LSRV)).num_blacklisted_flows).toEqual({ as_client: 0, as_server: 1, tot_as_client: 0, tot_as_server: 1 });
    expect((await hostData(LCLI)).num_blacklisted_flows).toEqual({ as_client: 1, as_server: 0, tot_as_client: 1, tot_as_server: 0 });
    // LocalHost::lua only: a remote host has none
    expect(await hostData(GOOD)).not.toHaveProperty('num_blacklisted_flows');
  });
});

describe('historical flows', () => {
  it('IS_CLI_BLACKLISTED / IS_SRV_BLACKLISTED as the flows began', async () => {
    const rows = await ended.history!.backend.query({ sql: 'SELECT IPV4_SRC_ADDR, IPV4_DST_ADDR, IS_CLI_BLACKLISTED, IS_SRV_BLACKLISTED FROM flows ORDER BY FIRST_SEEN', params: [] });
    const ip = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    expect(rows.map((r: any) => [ip(Number(r.IPV4_SRC_ADDR)), ip(Number(r.IPV4_DST_ADDR)), Number(r.IS_CLI_BLACKLISTED), Number(r.IS_SRV_BLACKLISTED)])).toEqual([
      [BAD, LSRV, 1, 0],
      [LCLI, BAD, 0, 1],
      [LCLI, GOOD, 0, 0],
      [LCLI, NEAR, 0, 0],
    ]);
  });
});

describe('attacker and victim', () => {
  it("the blacklist contacts' roles on the flow rows, as ntopng's alerts set them; none on a flow without an alert", async () => {
    const rows = await ended.history!.backend.query({ sql: 'SELECT IPV4_SRC_ADDR, IPV4_DST_ADDR, STATUS, IS_CLI_ATTACKER, IS_CLI_VICTIM, IS_SRV_ATTACKER, IS_SRV_VICTIM FROM flows ORDER BY FIRST_SEEN', params: [] });
    const ip = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
    const got = rows.map((r: any) => [ip(Number(r.IPV4_SRC_ADDR)), ip(Number(r.IPV4_DST_ADDR)), Number(r.STATUS), Number(r.IS_CLI_ATTACKER), Number(r.IS_CLI_VICTIM), Number(r.IS_SRV_ATTACKER), Number(r.IS_SRV_VICTIM)]);
    // a blacklisted client: it attacks, the local server is the victim; a blacklisted server: both attack
    expect(got[0]).toEqual([BAD, LSRV, 9, 1, 0, 0, 1]);
    expect(got[1]).toEqual([LCLI, BAD, 13, 1, 0, 1, 0]);
    for (const g of got.slice(2)) expect(g.slice(3), String(g)).toEqual([0, 0, 0, 0]);
  });
});

describe('blacklist flow checks', () => {
  it('client contact (9, score 50) from outside to a local server; server contact (13, score 200) from a local client; nothing else', async () => {
    const r = ok(await ended.call(v2('get/flow/alert/list'), { query: { ifid: 0, epoch_begin: 0, epoch_end: 0xffffffff, length: 100 } }));
    const got = (r.records as any[]).map((x) => [Number(x.alert_id.value), x.cli_ip.value, x.srv_ip.value, Number(x.score.value)]).filter(([id]) => [1, 9, 13].includes(id as number));
    // each session is also low goodput (12, score 10: 5 packets, 25 payload bytes of 295), which adds to the flow's score;
    // the client's flow to the Malware network also carries nDPI's Client Contacted A Malware Host risk (severe, 150:
    // ndpi_fill_ip_protocol_category, the server's address in category 100 and not the client's)
    expect(got.sort()).toEqual(
      [
        [9, BAD, LSRV, 50 + 10],
        [13, LCLI, BAD, 200 + 10 + 150],
      ].sort(),
    );
  });
});
