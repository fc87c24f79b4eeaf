// Custom applications and categories through ntopng's REST endpoints
// (edit|delete/application/application, edit/category/category,
// get/category/list, get/l7/application/consts), on the real service:
// the protocols file (-p) rewritten in ntopng's layout and compared with
// text written here by hand, ids as nDPI (first custom id after its own
// protocols, counted per new name) and ntopng's editor (1024, 1025 … never
// reused) give them, the .bak of the operator's file, categories moved
// between protocols and counted in the category list, custom category
// hosts, error codes and hostile input, and the service without -p.
//
// Custom classification rules are process-global in the native addon (the
// last CustomApps applied wins): one service at a time, the one without -p
// started after the one with -p is closed.
import { existsSync, readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Engine, l7Name } from '../ts/bindings/engine.js';
import { replayFrames } from './fixtures/dissect.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { addUser, startOnOnePacket, v2, type ApiService, type CallOptions } from './fixtures/api.js';
import { tempDir } from './fixtures/pcap.js';

type Service = ApiService & { cleanup(): Promise<void> };
interface Appl {
  name: string;
  appl_id: number;
  cat_id: number;
}
interface CatRow {
  column_category_id: number;
  column_category_name: string;
  column_num_hosts: string;
  column_category_hosts: string;
  column_num_protos: string;
}

const VIEWER = { user: 'viewer', pw: 'pw-viewer-123' };

function helpers(get: () => Service) {
  const call = (p: string, o?: CallOptions) => get().call(v2(p), o);
  const editApp = (query: CallOptions['query'], o: CallOptions = {}) => call('edit/application/application', { query, ...o });
  const deleteApp = (query: CallOptions['query'], o: CallOptions = {}) => call('delete/application/application', { query, ...o });
  const editCat = (query: CallOptions['query'], o: CallOptions = {}) => call('edit/category/category', { query, ...o });
  async function consts(): Promise<Appl[]> {
    const r = await call('get/l7/application/consts');
    expect(r.body.rc).toBe(0);
    return r.body.rsp;
  }
  /** the consts entries with that name (exact spelling) */
  const named = async (name: string) => (await consts()).filter((a) => a.name === name);
  async function categories(): Promise<CatRow[]> {
    const r = await call('get/category/list', { query: { ifid: 0 } });
    expect(r.body.rc).toBe(0);
    return r.body.rsp;
  }
  const row = (rows: CatRow[], id: number) => {
    const r = rows.find((x) => x.column_category_id === id);
    if (!r) throw new Error(`no category ${id} in the list`);
    return r;
  };
  /** the protocol count of column_num_protos (the number inside the link) */
  const numProtos = (r: CatRow) => {
    const m = /^<a href="\/lua\/admin\/edit_categories\?tab=protocols&category=cat_(\d+)">(\d+)<\/a>$/.exec(r.column_num_protos);
    if (!m || +m[1] !== r.column_category_id) throw new Error(`column_num_protos '${r.column_num_protos}'`);
    return +m[2];
  };
  return { call, editApp, deleteApp, editCat, consts, named, categories, row, numProtos };
}

// nDPI's own protocols: the registry without the operator's ones. nDPI gives
// a new name in protos.txt the next id after its own (NDPI_MAX_SUPPORTED_PROTOCOLS)
// and counts every new name, one given with =id included (ndpi_handle_rule).
const builtins = () => Engine.info().dpi.protocols.filter((p) => !p.custom);
const firstCustomId = () => Math.max(...builtins().map((p) => p.id)) + 1;

const ORIGINAL = 'tcp:7000@Alpha\nhost:"alpha.example"@Alpha\nudp:7100-7102@Beta=1500\ntcp:7200@Epsilon\n';

describe('with a protocols file (-p)', () => {
  let s: Service;
  const tmp = tempDir('flowgate-protos-');
  const file = tmp.file('protos.txt', ORIGINAL);
  const h = helpers(() => s);
  const read = () => readFileSync(file, 'utf8');
  // the ids the original file gives (hand-counted from nDPI's rule)
  let ALPHA = 0;
  let EPSILON = 0;

  beforeAll(async () => {
    s = await startOnOnePacket({ protocolsFile: file });
    await addUser(s, { username: VIEWER.user, password: VIEWER.pw });
  });
  afterAll(async () => {
    await s?.cleanup();
    tmp.cleanup();
  });

  describe('the protocols file, round trip', () => {
    // what the file holds after each step, in ntopng's layout, by hand
    const alphaRules = [
      'tcp:7001',
      'host:"alpha2.example"',
      'ip:10.9.0.0/16:8443',
      'ipv6:[2001:db8::1]',
      'ipv6:[2001:db8::]/32:443',
      'ip:10.1.0.0/16',
      'udp:5000-5010',
      'ip:1.2.3.4',
      'ip:1.2.3.4:443',
      'host:"example.org"',
    ];
    // nDPI's own protocols are written without an id (rules added to nDPI's protocol)
    const block = (name: string, id: number | undefined, rules: string[]) => `# ${name}\n${rules.map((r) => `${r}@${name}${id === undefined ? '' : `=${id}`}\n`).join('')}\n`;
    let afterAlphaEdit = '';

    it('reads the operator file: ids as nDPI gives them, =id kept, listed in the consts', async () => {
      const builtinIds = new Set(builtins().map((p) => p.id));
      ALPHA = firstCustomId();
      // Alpha takes the first custom id; Beta has its =1500 but still counts; Epsilon is third
      EPSILON = ALPHA + 2;
      expect(builtinIds.has(ALPHA)).toBe(false);
      const c = await h.consts();
      const pick = (n: string) => c.filter((a) => a.name === n).map((a) => [a.appl_id, a.cat_id]);
      expect([pick('Alpha'), pick('Beta'), pick('Epsilon')]).toEqual([[[ALPHA, 0]], [[1500, 0]], [[EPSILON, 0]]]);
      // the registry marks them as the operator's
      const custom = Engine.info().dpi.protocols.filter((p) => p.custom).map((p) => [p.name, p.id]);
      expect(custom.sort()).toEqual([['Alpha', ALPHA], ['Beta', 1500], ['Epsilon', EPSILON]].sort());
      // nothing written yet
      expect(read()).toBe(ORIGINAL);
      expect(existsSync(`${file}.bak`)).toBe(false);
    });

    it("edit replaces the named application's rules: the file rewritten whole as ntopng writes it, the original kept as .bak", async () => {
      const rules = [
        'tcp:7001',
        'host:alpha2.example', // unquoted: written quoted
        'ip:10.9.0.0/16:8443',
        'ipv6:[2001:db8::1]',
        'ipv6:[2001:db8::]/32:443',
        '10.1.0.0/16', // bare network: an ip: rule
        'udp:5000-5010',
        'ip:1.2.3.4',
        'ip:1.2.3.4:443',
        'host:"example.org"',
      ];
      const r = await h.editApp({ protocol_alias: 'Alpha', custom_rules: rules.join(',') });
      expect([r.status, r.body.rc]).toEqual([200, 0]);
      afterAlphaEdit = block('Alpha', ALPHA, alphaRules) + block('Beta', 1500, ['udp:7100-7102']) + block('Epsilon', EPSILON, ['tcp:7200']);
      expect(read()).toBe(afterAlphaEdit);
      expect(readFileSync(`${file}.bak`, 'utf8')).toBe(ORIGINAL);
      // ids unchanged
      expect((await h.named('Alpha')).map((a) => a.appl_id)).toEqual([ALPHA]);
      expect((await h.named('Epsilon')).map((a) => a.appl_id)).toEqual([EPSILON]);
    });

    it('a new name gets 1024, a deleted one is not reused (1025 next); the .bak is kept once', async () => {
      const g = await h.editApp({ protocol_alias: 'Gamma', custom_rules: 'udp:9999' });
      expect(g.body.rc).toBe(0);
      expect((await h.named('Gamma')).map((a) => [a.appl_id, a.cat_id])).toEqual([[1024, 0]]);
      expect(read()).toBe(afterAlphaEdit + block('Gamma', 1024, ['udp:9999']));

      const d = await h.deleteApp({ protocol_alias: 'Gamma' });
      expect(d.body.rc).toBe(0);
      expect(read()).toBe(afterAlphaEdit);
      expect(await h.named('Gamma')).toEqual([]);
      expect(Engine.info().dpi.protocols.some((p) => p.name === 'Gamma' || p.id === 1024)).toBe(false);

      const e = await h.editApp({ protocol_alias: 'Delta', custom_rules: 'tcp:9998' });
      expect(e.body.rc).toBe(0);
      expect((await h.named('Delta')).map((a) => a.appl_id)).toEqual([1025]);
      expect(read()).toBe(afterAlphaEdit + block('Delta', 1025, ['tcp:9998']));
      // the operator's original, not the first rewrite
      expect(readFileSync(`${file}.bak`, 'utf8')).toBe(ORIGINAL);
    });

    it("a name of nDPI's keeps nDPI's id (HTTP is 7) and is no custom protocol; deleting its rules leaves nDPI's HTTP", async () => {
      const http = builtins().find((p) => p.name === 'HTTP');
      expect(http?.id).toBe(7);
      const before = read();
      const r = await h.editApp({ protocol_alias: 'HTTP', custom_rules: 'tcp:8081' });
      expect(r.body.rc).toBe(0);
      expect(read()).toBe(before + block('HTTP', undefined, ['tcp:8081']));
      expect((await h.named('HTTP')).map((a) => a.appl_id)).toEqual([7]);
      expect(Engine.info().dpi.protocols.filter((p) => p.custom).map((p) => p.name)).not.toContain('HTTP');

      expect((await h.deleteApp({ protocol_alias: 'HTTP' })).body.rc).toBe(0);
      expect(read()).toBe(before);
      expect((await h.named('HTTP')).map((a) => a.appl_id)).toEqual([7]);
    });

    it('an invalid rule among valid ones changes nothing (-5, file as it was)', async () => {
      const before = read();
      for (const bad of ['tcp:70000', 'tcp:5-3', 'udp:', 'host:"a b"', 'ip:1.2.3.4/33', 'ipv6:[zz::1]', 'ip:1.2.3.4:99999', 'foo:1', '10.0.0.300', 'nbpf:host 1.2.3.4']) {
        const r = await h.editApp({ protocol_alias: 'Alpha', custom_rules: `tcp:7001,${bad}` });
        expect([bad, r.status, r.body.rc]).toEqual([bad, 400, -5]);
      }
      expect(read()).toBe(before);
      // the near miss: the same valid rule alone is accepted
      expect((await h.editApp({ protocol_alias: 'Alpha', custom_rules: alphaRules.join(',') })).body.rc).toBe(0);
      expect(read()).toBe(before);
    });
  });

  describe('edits apply to the engines at once', () => {
    it('an application added through the API names the next flows; deleted, it no longer does', async () => {
      const tmpf = tempDir('flowgate-protos-live-');
      try {
        const flow = () => {
          const f = eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.50.0.1', dst: '10.50.0.2', proto: IPPROTO.UDP }, udp({ sport: 40001, dport: 6543 }, Buffer.from('not a known protocol'))));
          return replayFrames(tmpf.file(`f${Math.random()}.pcap`), [f], (e) => {
            const [x] = e.drainExpired(4);
            return `${l7Name(x.l7_master, x.l7_app)} (${x.confidence})`;
          }, { flushAtEnd: true });
        };
        expect(await flow()).toBe('Unknown (Unknown)');
        expect((await h.editApp({ protocol_alias: 'LiveApp', custom_rules: 'udp:6540-6549' })).body.rc).toBe(0);
        expect(await flow()).toBe('LiveApp (Match by custom rule)');
        expect((await h.deleteApp({ protocol_alias: 'LiveApp' })).body.rc).toBe(0);
        expect(await flow()).toBe('Unknown (Unknown)');
      } finally {
        tmpf.cleanup();
      }
    });
  });

  describe('the category of a protocol', () => {
    it("l7_proto_id + category moves HTTP: consts shows it, the category list counts move by one", async () => {
      const http0 = (await h.named('HTTP'))[0];
      expect(http0.cat_id).toBe(builtins().find((p) => p.id === 7)!.category);
      const from = http0.cat_id;
      const to = 9; // Chat
      expect(from).not.toBe(to);
      const before = await h.categories();
      const file0 = read();
      // as the web editor sends it: a POST form
      const r = await h.call('edit/application/application', { form: { l7_proto_id: 7, category: to } });
      expect(r.body.rc).toBe(0);
      expect((await h.named('HTTP')).map((a) => [a.appl_id, a.cat_id])).toEqual([[7, to]]);
      const after = await h.categories();
      expect(after.map((x) => x.column_category_id)).toEqual(before.map((x) => x.column_category_id));
      for (const b of before) {
        const a = h.row(after, b.column_category_id);
        const delta = b.column_category_id === from ? -1 : b.column_category_id === to ? 1 : 0;
        expect([b.column_category_id, h.numProtos(a) - h.numProtos(b)]).toEqual([b.column_category_id, delta]);
      }
      // the protocols file is not touched by a category change
      expect(read()).toBe(file0);
    });

    it('without category the protocol goes to 0 (as ntopng); then back to where nDPI had it', async () => {
      const orig = builtins().find((p) => p.id === 7)!.category;
      const r = await h.editApp({ l7_proto_id: 7 });
      expect(r.body.rc).toBe(0);
      expect((await h.named('HTTP'))[0].cat_id).toBe(0);
      expect((await h.editApp({ l7_proto_id: 7, category: orig })).body.rc).toBe(0);
      expect((await h.named('HTTP'))[0].cat_id).toBe(orig);
    });

    it('the category of a custom application, by its id; kept across a rule edit', async () => {
      const file0 = read();
      expect((await h.editApp({ l7_proto_id: ALPHA, category: 13 })).body.rc).toBe(0);
      expect((await h.named('Alpha')).map((a) => [a.appl_id, a.cat_id])).toEqual([[ALPHA, 13]]);
      expect(read()).toBe(file0);
      // a rule edit without category does not reset it (no l7_proto_id sent)
      expect((await h.editApp({ protocol_alias: 'Alpha', custom_rules: 'tcp:7001' })).body.rc).toBe(0);
      expect((await h.named('Alpha')).map((a) => [a.appl_id, a.cat_id])).toEqual([[ALPHA, 13]]);
    });
  });

  describe('errors', () => {
    it('-5: no alias and no id, unknown id or category, bad numbers; -5 for deleting what is not there', async () => {
      const file0 = read();
      const cases: [string, CallOptions['query']][] = [
        ['nothing', {}],
        ['rules only', { custom_rules: 'tcp:1' }],
        ['blank alias', { protocol_alias: '   ', custom_rules: 'tcp:1' }],
        ['unknown id', { l7_proto_id: 9999, category: 5 }],
        ['id out of range', { l7_proto_id: 70000, category: 5 }],
        ['id not a number', { l7_proto_id: 'seven', category: 5 }],
        ['negative id', { l7_proto_id: -1, category: 5 }],
        ['unknown category', { l7_proto_id: 7, category: 50 }],
        ['category not a number', { l7_proto_id: 7, category: 'web' }],
        ['unknown category on a custom app', { protocol_alias: 'Alpha', custom_rules: 'tcp:7001', category: 35 }],
        ['alias over 64', { protocol_alias: 'A'.repeat(65), custom_rules: 'tcp:1' }],
      ];
      for (const [what, query] of cases) {
        const r = await h.editApp(query);
        expect([what, r.status, r.body.rc]).toEqual([what, 400, -5]);
      }
      for (const [what, query] of [['no alias', {}], ['no such app', { protocol_alias: 'NoSuchApp' }], ['blank', { protocol_alias: ' ' }]] as const) {
        const r = await h.deleteApp(query);
        expect([what, r.status, r.body.rc]).toEqual([what, 400, -5]);
      }
      expect(read()).toBe(file0);
      // near misses: a category nDPI has after its gap (99 Mining), an alias of 64
      expect((await h.editApp({ l7_proto_id: 7, category: 99 })).body.rc).toBe(0);
      expect((await h.named('HTTP'))[0].cat_id).toBe(99);
      expect((await h.editApp({ l7_proto_id: 7, category: builtins().find((p) => p.id === 7)!.category })).body.rc).toBe(0);
      const long = 'L'.repeat(64);
      expect((await h.editApp({ protocol_alias: long, custom_rules: 'tcp:64' })).body.rc).toBe(0);
      expect((await h.named(long)).length).toBe(1);
      expect((await h.deleteApp({ protocol_alias: long })).body.rc).toBe(0);
      expect(read()).toBe(file0);
    });

    it('-3 for a user who is not an administrator, nothing changed; the list stays readable', async () => {
      const file0 = read();
      const cats0 = await h.categories();
      const tries: [string, () => Promise<{ status: number; body: any }>][] = [
        ['edit app', () => h.editApp({ protocol_alias: 'Viewer', custom_rules: 'tcp:1' }, VIEWER)],
        ['edit category of 7', () => h.editApp({ l7_proto_id: 7, category: 9 }, VIEWER)],
        ['delete app', () => h.deleteApp({ protocol_alias: 'Alpha' }, VIEWER)],
        ['edit category hosts', () => h.editCat({ category: 'cat_20', custom_hosts: 'viewer.example', alias: 'V' }, VIEWER)],
      ];
      for (const [what, f] of tries) {
        const r = await f();
        expect([what, r.status, r.body.rc]).toEqual([what, 401, -3]);
      }
      expect(read()).toBe(file0);
      expect(await h.named('Viewer')).toEqual([]);
      expect((await h.named('Alpha')).length).toBe(1);
      expect(await h.categories()).toEqual(cats0);
      const list = await h.call('get/category/list', { query: { ifid: 0 }, ...VIEWER });
      expect(list.body.rc).toBe(0);
    });

    it('hostile text never gives a 5xx; the service keeps answering and the file keeps its applications', async () => {
      const big = 'x'.repeat(10 * 1024);
      const reqs: [string, CallOptions['query']][] = [
        ['edit/application/application', { protocol_alias: "x' OR '1'='1", custom_rules: "host:\"' OR 1=1 --\"" }],
        ['edit/application/application', { protocol_alias: 'Robert"); DROP TABLE protocols;--', custom_rules: 'tcp:1;DROP' }],
        ['edit/application/application', { protocol_alias: big, custom_rules: 'tcp:1' }],
        ['edit/application/application', { protocol_alias: 'Big', custom_rules: big }],
        ['edit/application/application', { protocol_alias: 'Big', custom_rules: `host:${big}` }],
        ['edit/application/application', { protocol_alias: 'Big', custom_rules: `ip:${big}` }],
        ['edit/application/application', { protocol_alias: 'HTTP', custom_rules: ',,,,' + ','.repeat(5000) }],
        ['edit/application/application', { protocol_alias: 'Nul', custom_rules: 'tcp:1\u0000' }],
        ['edit/application/application', { protocol_alias: 'Emoji', custom_rules: 'host:"😀.example"' }],
        ['edit/application/application', { l7_proto_id: '7 OR 1=1', category: 5 }],
        ['edit/application/application', { l7_proto_id: '__proto__', category: '__proto__' }],
        ['edit/application/application', { l7_proto_id: big, category: big }],
        ['delete/application/application', { protocol_alias: "'; DELETE FROM apps; --" }],
        ['delete/application/application', { protocol_alias: big }],
        ['delete/application/application', { protocol_alias: '__proto__' }],
        ['delete/application/application', { protocol_alias: 'constructor' }],
        ['edit/category/category', { category: "cat_5' OR '1'='1", custom_hosts: 'a.example' }],
        ['edit/category/category', { category: '__proto__', custom_hosts: 'a.example' }],
        ['edit/category/category', { category: big }],
        ['edit/category/category', { category: 'cat_20', custom_hosts: big }],
        ['edit/category/category', { category: 'cat_20', custom_hosts: `${big}.example` }],
        ['edit/category/category', { category: 'cat_20', alias: big }],
        ['edit/category/category', { category: 'cat_20', custom_hosts: "a.example' OR 1=1" }],
      ];
      for (const [path, params] of reqs) {
        // as a POST form always; as a query too when the URL stays under node's 16 kB header bound
        const ways: CallOptions[] = [{ form: params }];
        if (new URLSearchParams(params as Record<string, string>).toString().length < 12_000) ways.push({ query: params });
        for (const way of ways) {
          const r = await h.call(path, way);
          const what = `${way.form ? 'POST' : 'GET'} ${path} ${JSON.stringify(params).slice(0, 80)}`;
          expect([what, r.status < 500, typeof r.body?.rc]).toEqual([what, true, 'number']);
          expect([what, [0, -3, -5].includes(r.body.rc)]).toEqual([what, true]);
        }
      }
      // still answering, Alpha still there
      expect((await h.named('Alpha')).map((a) => a.appl_id)).toEqual([ALPHA]);
    });

    it("names like Object.prototype's members are plain application and category names", async () => {
      for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
        const r = await h.editApp({ protocol_alias: name, custom_rules: 'udp:4242' });
        expect([name, r.body.rc]).toEqual([name, 0]);
        const got = await h.named(name);
        expect([name, got.length, got[0]?.appl_id >= 1024]).toEqual([name, 1, true]);
        expect(readFileSync(file, 'utf8')).toContain(`\n# ${name}\nudp:4242@${name}=${got[0].appl_id}\n\n`);
        expect([name, (await h.deleteApp({ protocol_alias: name })).body.rc]).toEqual([name, 0]);
        expect(await h.named(name)).toEqual([]);
      }
      const r = await h.editCat({ category: 'cat_22', custom_hosts: '__proto__,constructor', alias: '__proto__' });
      expect(r.body.rc).toBe(0);
      const row = h.row(await h.categories(), 22);
      expect([row.column_category_name, row.column_num_hosts, row.column_category_hosts]).toEqual(['__proto__', '2', '__proto__,constructor']);
      expect((await h.editCat({ category: 'cat_22', custom_hosts: '' })).body.rc).toBe(0);
    });

    it("an alias with '@', '=' or a line break is refused, or kept whole: an answer of 0 means exactly that application is added", async () => {
      // nDPI splits a protos.txt line at its last '@' and a name at its '=', and reads lines:
      // a name holding one of them cannot be written back as one application
      const customNames = () => Engine.info().dpi.protocols.filter((p) => p.custom).map((p) => p.name).sort();
      const outcome: [string, string][] = [];
      for (const alias of ['At@Sign', 'Eq=5', 'Brk\nudp:4344@Injected', "x' OR '1'='1"]) {
        const file0 = read();
        const names0 = customNames();
        const r = await h.editApp({ protocol_alias: alias, custom_rules: 'udp:4343' });
        const after = customNames();
        // nDPI's name for it: the characters '/&^:;'" ' become '_'
        const name = alias.trim().replace(/[/&^:;'" ]/g, '_');
        let what: string;
        if (r.status >= 500 || typeof r.body?.rc !== 'number') what = `answered ${r.status} ${r.text.slice(0, 100)}`;
        else if (r.body.rc !== 0) what = r.body.rc === -5 && read() === file0 ? 'refused' : `rc ${r.body.rc}, file ${JSON.stringify(read())}`;
        else if (JSON.stringify(after) === JSON.stringify([...names0, name].sort())) what = 'added as named';
        else what = `rc 0: applications added ${JSON.stringify(after.filter((n) => !names0.includes(n)))}, file ${JSON.stringify(read())}`;
        outcome.push([alias, what === 'refused' || what === 'added as named' ? 'refused or added as named' : what]);
        // back to where it was, whatever happened
        for (const n of after.filter((x) => !names0.includes(x))) await h.deleteApp({ protocol_alias: n });
        if (customNames().length !== names0.length) throw new Error(`could not remove what '${alias}' added`);
      }
      expect(outcome).toEqual(outcome.map(([a]) => [a, 'refused or added as named']));
    });
  });

  describe('custom category hosts and the category list', () => {
    it('edit sets hosts and alias; the list shows them, and the host count', async () => {
      const before = h.row(await h.categories(), 20);
      expect([before.column_category_name, before.column_num_hosts, before.column_category_hosts]).toEqual([
        Engine.info().dpi.categories.find((c) => c.id === 20)!.name,
        '0',
        '',
      ]);
      const r = await h.editCat({ category: 'cat_20', custom_hosts: 'office.example, 10.20.0.0/16,192.0.2.7 ,2001:db8:20::/48,office.example', alias: 'Office' });
      expect(r.body.rc).toBe(0);
      const row = h.row(await h.categories(), 20);
      // the duplicate once, surrounding spaces gone
      expect([row.column_category_name, row.column_num_hosts, row.column_category_hosts]).toEqual(['Office', '4', 'office.example,10.20.0.0/16,192.0.2.7,2001:db8:20::/48']);
      // other categories untouched
      expect(h.row(await h.categories(), 21).column_num_hosts).toBe('0');
    });

    it('a host another category lists stays there (skipped here); a near name is not skipped', async () => {
      // bare id and category_alias accepted too
      const r = await h.editCat({ category: '21', custom_hosts: 'office.example,sub.office.example,192.0.2.7,192.0.2.8', category_alias: 'Lab' });
      expect(r.body.rc).toBe(0);
      const rows = await h.categories();
      expect([h.row(rows, 21).column_category_name, h.row(rows, 21).column_category_hosts, h.row(rows, 21).column_num_hosts]).toEqual(['Lab', 'sub.office.example,192.0.2.8', '2']);
      expect(h.row(rows, 20).column_category_hosts).toBe('office.example,10.20.0.0/16,192.0.2.7,2001:db8:20::/48');
    });

    it('-5 for a bad category or host entry, nothing changed', async () => {
      const rows0 = await h.categories();
      const bad: [string, CallOptions['query']][] = [
        ['no category', { custom_hosts: 'x.example' }],
        ['text', { category: 'web', custom_hosts: 'x.example' }],
        ['cat_ without id', { category: 'cat_', custom_hosts: 'x.example' }],
        ['negative', { category: 'cat_-1', custom_hosts: 'x.example' }],
        ['unknown category', { category: 'cat_50', custom_hosts: 'x.example' }],
        ['space in host', { category: 'cat_20', custom_hosts: 'ok.example,a b' }],
        ['bad prefix', { category: 'cat_20', custom_hosts: 'ok.example,1.2.3.4/99' }],
        ['markup', { category: 'cat_20', custom_hosts: '<script>' }],
        ['url', { category: 'cat_20', custom_hosts: 'http://x.example/' }],
      ];
      for (const [what, query] of bad) {
        const r = await h.editCat(query);
        expect([what, r.status, r.body.rc]).toEqual([what, 400, -5]);
      }
      expect(await h.categories()).toEqual(rows0);
      // near miss: a category after nDPI's gap
      expect((await h.editCat({ category: 'cat_99', custom_hosts: 'miner.example' })).body.rc).toBe(0);
      expect(h.row(await h.categories(), 99).column_category_hosts).toBe('miner.example');
      expect((await h.editCat({ category: 'cat_99', custom_hosts: '' })).body.rc).toBe(0);
    });

    it('empty custom_hosts clears a category (its alias stays); its hosts can then go elsewhere', async () => {
      expect((await h.editCat({ category: 'cat_20', custom_hosts: '' })).body.rc).toBe(0);
      let rows = await h.categories();
      expect([h.row(rows, 20).column_category_name, h.row(rows, 20).column_num_hosts, h.row(rows, 20).column_category_hosts]).toEqual(['Office', '0', '']);
      expect((await h.editCat({ category: 'cat_21', custom_hosts: 'office.example,sub.office.example' })).body.rc).toBe(0);
      rows = await h.categories();
      expect([h.row(rows, 21).column_category_name, h.row(rows, 21).column_category_hosts]).toEqual(['Lab', 'office.example,sub.office.example']);
      expect((await h.editCat({ category: 'cat_21' })).body.rc).toBe(0);
      expect(h.row(await h.categories(), 21).column_num_hosts).toBe('0');
    });
  });
});

describe('without a protocols file', () => {
  let s: Service;
  const h = helpers(() => s);

  beforeAll(async () => {
    s = await startOnOnePacket();
  });
  afterAll(() => s?.cleanup());

  it("the previous service's applications are gone (the rules are the new service's)", async () => {
    expect(Engine.info().dpi.protocols.filter((p) => p.custom)).toEqual([]);
    expect(await h.named('Alpha')).toEqual([]);
    const http = builtins().find((p) => p.id === 7)!;
    expect((await h.named('HTTP')).map((a) => [a.appl_id, a.cat_id])).toEqual([[7, http.category]]);
  });

  it('-3 for anything that writes the file: rules, a new name, deletes', async () => {
    const tries: [string, () => Promise<{ status: number; body: any }>][] = [
      ['new app with rules', () => h.editApp({ protocol_alias: 'Zed', custom_rules: 'tcp:1' })],
      ['new name without rules', () => h.editApp({ protocol_alias: 'Zed' })],
      ["rules for nDPI's HTTP", () => h.editApp({ protocol_alias: 'HTTP', custom_rules: 'tcp:8080' })],
      ['rules with an id and category', () => h.editApp({ protocol_alias: 'Zed', l7_proto_id: 7, category: 9, custom_rules: 'tcp:1' })],
      ['delete', () => h.deleteApp({ protocol_alias: 'Zed' })],
      ['delete HTTP', () => h.deleteApp({ protocol_alias: 'HTTP' })],
    ];
    for (const [what, f] of tries) {
      const r = await f();
      expect([what, r.status, r.body.rc]).toEqual([what, 401, -3]);
    }
    expect(await h.named('Zed')).toEqual([]);
    expect(Engine.info().dpi.protocols.filter((p) => p.custom)).toEqual([]);
    // the failed edit with l7_proto_id set no category either
    expect((await h.named('HTTP'))[0].cat_id).toBe(builtins().find((p) => p.id === 7)!.category);
  });

  it('a category of an existing protocol needs no file (by id, or by its name without rules); category hosts neither', async () => {
    const orig = builtins().find((p) => p.id === 7)!.category;
    expect((await h.editApp({ l7_proto_id: 7, category: 9 })).body.rc).toBe(0);
    expect((await h.named('HTTP'))[0].cat_id).toBe(9);
    expect((await h.editApp({ protocol_alias: 'HTTP', category: 10 })).body.rc).toBe(0);
    expect((await h.named('HTTP'))[0].cat_id).toBe(10);
    expect((await h.editApp({ l7_proto_id: 7, category: orig })).body.rc).toBe(0);
    expect((await h.named('HTTP'))[0].cat_id).toBe(orig);
    expect((await h.editCat({ category: 'cat_23', custom_hosts: 'nofile.example', alias: 'NoFile' })).body.rc).toBe(0);
    const row = h.row(await h.categories(), 23);
    expect([row.column_category_name, row.column_category_hosts]).toEqual(['NoFile', 'nofile.example']);
  });
});
