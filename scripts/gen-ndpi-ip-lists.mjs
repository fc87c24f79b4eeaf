// Rebuilds native/src/dpi/data/ip-ranges.tsv and ip-risks.tsv from an nDPI
// source tree:
//   node scripts/gen-ndpi-ip-lists.mjs <nDPI checkout> [commit]
// then `node scripts/gen-dpi-tables.mjs` (ip-ranges.inc, ip-risks.inc).
//
// The protocol lists are the ones nDPI loads into its protocol Patricia tree,
// found by reading src/lib/ndpi_main.c: every array passed to
// ndpi_init_ptree_ipv4/6 with `protocols->v4/v6` (host_protocol_list of
// ndpi_content_match.c.inc, then the generated lists of src/lib/inc_generated/
// in the order nDPI adds them). The risk lists are the arrays it passes with
// `ip_risk->v4/v6` (anonymous subscribers: iCloud Private Relay, ProtonVPN
// exit nodes; crawlers), whose values are risks (ndpi_risk_enum, numbered
// from src/include/ndpi_typedefs.h). nDPI's trees keep one value per prefix
// and a later list overwrites an earlier one: the last entry of a prefix wins
// here too. Protocol constants are read from src/include/ndpi_protocol_ids.h
// and named from data/ndpi-protocols.tsv (ids nDPI 4.11 has).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [src, commit = 'unknown'] = process.argv.slice(2);
if (!src) {
  console.error('usage: node scripts/gen-ndpi-ip-lists.mjs <nDPI checkout> [commit]');
  process.exit(2);
}
const dpi = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'src', 'dpi');
const read = (p) => readFileSync(join(src, p), 'utf8');
const stripComments = (t) => t.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');

// NDPI_PROTOCOL_X → id
const ids = new Map();
for (const m of read('src/include/ndpi_protocol_ids.h').matchAll(/\b(NDPI_PROTOCOL_[A-Z0-9_]+)\s*=\s*(\d+)/g)) ids.set(m[1], Number(m[2]));
// id → our protocol name
const names = new Map();
for (const line of readFileSync(join(dpi, 'data', 'ndpi-protocols.tsv'), 'utf8').split('\n').slice(1)) {
  const [id, name] = line.split('\t');
  if (name) names.set(Number(id), name);
}

// the protocol lists, in the order nDPI adds them
const main = stripComments(read('src/lib/ndpi_main.c'));
const order = [...main.matchAll(/ndpi_init_ptree_ipv([46])\s*\(\s*(?:ndpi_str\s*,\s*)?ndpi_str->protocols->v[46]\s*,\s*([a-z0-9_]+)\s*\)/g)].map((m) => m[2]);
if (!order.length) throw new Error('no protocol lists found in ndpi_main.c');

// every array of the list files, by name
const files = ['src/lib/ndpi_content_match.c.inc', ...readdirSync(join(src, 'src/lib/inc_generated')).filter((f) => f.endsWith('.c.inc')).map((f) => `src/lib/inc_generated/${f}`)];
const arrays = new Map();
for (const f of files) {
  const text = stripComments(read(f)).replace(/^\s*#.*$/gm, ''); // custom-list includes and their guards
  for (const m of text.matchAll(/static\s+ndpi_network(6?)\s+([a-z0-9_]+)\s*\[\s*\]\s*=\s*\{([\s\S]*?)\n\s*\};/g)) arrays.set(m[2], { v6: m[1] === '6', body: m[3], file: f });
}

const v4Text = (n) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const byPrefix = new Map(); // cidr → protocol name (a later list overwrites)
const perList = [];
let unknown = 0;
for (const name of order) {
  const a = arrays.get(name);
  if (!a) throw new Error(`list ${name} (named in ndpi_main.c) not found in any list file`);
  let n = 0;
  const entry = a.v6 ? /\{\s*"([0-9A-Fa-f:.]+)"\s*,\s*(\d+)\s*,\s*(NDPI_PROTOCOL_[A-Z0-9_]+)\s*\}/g : /\{\s*(0x[0-9A-Fa-f]+)\s*,\s*(\d+)\s*,\s*(NDPI_PROTOCOL_[A-Z0-9_]+)\s*\}/g;
  for (const m of a.body.matchAll(entry)) {
    const id = ids.get(m[3]);
    const proto = id === undefined ? undefined : names.get(id);
    if (proto === undefined) {
      unknown++;
      continue;
    }
    const len = Number(m[2]);
    const addr = a.v6 ? m[1].toLowerCase() : v4Text(Number(m[1]) >>> 0);
    if (!a.v6 && Number(m[1]) === 0) continue; // the list's end marker
    byPrefix.set(`${addr}/${len}`, proto);
    n++;
  }
  perList.push(`${name} (${a.file.replace('src/lib/', '')}): ${n}`);
}

let out = 'cidr\tprotocol\n';
for (const [cidr, proto] of byPrefix) out += `${cidr}\t${proto}\n`;
writeFileSync(join(dpi, 'data', 'ip-ranges.tsv'), out);
console.log(`ip-ranges.tsv: ${byPrefix.size} prefixes from ${order.length} nDPI lists (commit ${commit}); ${unknown} entries of protocols nDPI 4.11's table lacks left out`);
for (const l of perList) console.log(`  ${l}`);

// The risk lists (ip_risk), in the order nDPI adds them; risk ids as
// ndpi_risk_enum counts them.
const risks = new Map();
{
  const typedefs = stripComments(read('src/include/ndpi_typedefs.h'));
  const body = typedefs.match(/typedef\s+enum\s*\{([\s\S]*?)\}\s*ndpi_risk_enum\s*;/);
  if (!body) throw new Error('ndpi_risk_enum not found in ndpi_typedefs.h');
  let next = 0;
  for (const m of body[1].matchAll(/\b(NDPI_[A-Z0-9_]+)\s*(?:=\s*(\d+))?\s*,?/g)) {
    if (m[2] !== undefined) next = Number(m[2]);
    risks.set(m[1], next++);
  }
}
const riskOrder = [...main.matchAll(/ndpi_init_ptree_ipv([46])\s*\(\s*(?:ndpi_str\s*,\s*)?ndpi_str->ip_risk->v[46]\s*,\s*([a-z0-9_]+)\s*\)/g)].map((m) => m[2]);
if (!riskOrder.length) throw new Error('no risk lists found in ndpi_main.c');
const riskByPrefix = new Map(); // cidr → [risk id, enum name]
const perRiskList = [];
for (const name of riskOrder) {
  const a = arrays.get(name);
  if (!a) throw new Error(`list ${name} (named in ndpi_main.c) not found in any list file`);
  let n = 0;
  const entry = a.v6 ? /\{\s*"([0-9A-Fa-f:.]+)"\s*,\s*(\d+)\s*,\s*(NDPI_[A-Z0-9_]+)\s*\}/g : /\{\s*(0x[0-9A-Fa-f]+)\s*,\s*(\d+)\s*,\s*(NDPI_[A-Z0-9_]+)\s*\}/g;
  for (const m of a.body.matchAll(entry)) {
    if (!a.v6 && Number(m[1]) === 0) continue;
    const id = risks.get(m[3]);
    if (id === undefined) throw new Error(`${name}: ${m[3]} is no ndpi_risk_enum value`);
    const addr = a.v6 ? m[1].toLowerCase() : v4Text(Number(m[1]) >>> 0);
    riskByPrefix.set(`${addr}/${Number(m[2])}`, [id, m[3]]);
    n++;
  }
  perRiskList.push(`${name} (${a.file.replace('src/lib/', '')}): ${n}`);
}
let rout = 'cidr\trisk\tname\n';
for (const [cidr, [id, enumName]] of riskByPrefix) rout += `${cidr}\t${id}\t${enumName}\n`;
writeFileSync(join(dpi, 'data', 'ip-risks.tsv'), rout);
console.log(`ip-risks.tsv: ${riskByPrefix.size} prefixes from ${riskOrder.length} nDPI risk lists (commit ${commit})`);
for (const l of perRiskList) console.log(`  ${l}`);
