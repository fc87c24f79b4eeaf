// Rebuilds native/src/dpi/data/hosts.tsv from an nDPI source tree:
//   node scripts/gen-ndpi-hosts.mjs <nDPI checkout> [commit]
// then `node scripts/gen-dpi-tables.mjs` (hosts.inc).
//
// The rows are nDPI's host_match[] of src/lib/ndpi_content_match.c.inc, in
// its order (commented-out entries are not): the pattern, the protocol its
// id names (the canonical name of data/ndpi-protocols.tsv, as nDPI names its
// built-in ids) and the pattern's own category (nDPI gives a flow named by
// the pattern that category, and masks some risks on the patterns of two of
// them; see data/hosts-README.md), named from data/categories.tsv after
// ndpi_protocol_category_t's numbering in src/include/ndpi_typedefs.h.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [src, commit = 'unknown'] = process.argv.slice(2);
if (!src) {
  console.error('usage: node scripts/gen-ndpi-hosts.mjs <nDPI checkout> [commit]');
  process.exit(2);
}
const dpi = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'src', 'dpi');
const read = (p) => readFileSync(join(src, p), 'latin1');
const stripComments = (t) => t.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/[^\n]*/g, '');
const tsv = (f) => readFileSync(join(dpi, 'data', f), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));

// NDPI_PROTOCOL_X → id → our name
const ids = new Map();
for (const m of read('src/include/ndpi_protocol_ids.h').matchAll(/\b(NDPI_PROTOCOL_[A-Z0-9_]+)\s*=\s*(\d+)/g)) ids.set(m[1], Number(m[2]));
const protoName = new Map(tsv('ndpi-protocols.tsv').map(([id, name]) => [Number(id), name]));
// category constants → id → our name
const catIds = new Map();
{
  const t = stripComments(read('src/include/ndpi_typedefs.h'));
  const body = t.match(/typedef\s+enum\s*\{([^}]*NDPI_PROTOCOL_CATEGORY_UNSPECIFIED[^}]*)\}\s*ndpi_protocol_category_t\s*;/);
  if (!body) throw new Error('ndpi_protocol_category_t not found in ndpi_typedefs.h');
  let next = 0;
  for (const m of body[1].matchAll(/\b((?:NDPI_PROTOCOL_CATEGORY|CUSTOM_CATEGORY)_[A-Z0-9_]+)\s*(?:=\s*(\d+))?\s*,?/g)) {
    if (m[2] !== undefined) next = Number(m[2]);
    catIds.set(m[1], next++);
  }
}
const catName = new Map(tsv('categories.tsv').map(([id, name]) => [Number(id), name]));

const text = stripComments(read('src/lib/ndpi_content_match.c.inc'));
const arr = text.match(/static\s+ndpi_protocol_match\s+host_match\s*\[\s*\]\s*=\s*\{([\s\S]*?)\n\s*\};/);
if (!arr) throw new Error('host_match[] not found');
let out = 'pattern\tprotocol\tcategory\n';
let n = 0;
for (const m of arr[1].matchAll(/\{\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*(NDPI_PROTOCOL_[A-Z0-9_]+)\s*,\s*([A-Z0-9_]+)\s*,\s*[A-Z0-9_]+\s*,\s*[A-Z0-9_]+\s*\}/g)) {
  const id = ids.get(m[3]);
  const proto = id === undefined ? undefined : protoName.get(id);
  if (proto === undefined) throw new Error(`host_match: ${m[1]}: unknown protocol ${m[3]}`);
  const cid = catIds.get(m[4]);
  const cat = cid === undefined ? undefined : catName.get(cid);
  if (cat === undefined) throw new Error(`host_match: ${m[1]}: unknown category ${m[4]}`);
  out += `${m[1].toLowerCase()}\t${proto}\t${cat}\n`;
  n++;
}
writeFileSync(join(dpi, 'data', 'hosts.tsv'), out);
console.log(`hosts.tsv: ${n} host patterns (commit ${commit})`);
