// Rebuilds native/src/dpi/data/sqli.tsv and xss.tsv from an nDPI source tree:
//   node scripts/gen-ndpi-libinjection-lists.mjs <nDPI checkout> [commit]
// then `node scripts/gen-dpi-tables.mjs` (sqli.inc, xss.inc).
//
// nDPI's URL validation (ndpi_validate_url) asks its copy of libinjection
// (src/lib/third_party/) for XSS and SQL injection. Its tables are read here
// as data:
// - include/libinjection_sqli_data.h: char_parse_map[] (which tokenizer reads
//   a token starting with each byte) and sql_keywords[] (word -> token type,
//   type 'F' marking a fingerprint of the blacklist, kept with its "0" prefix
//   as the table has it);
// - src/libinjection_xss.c: BLACKTAG[], BLACKATTR[] (name -> how its value is
//   judged) and the URL schemes of is_black_url().
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [src, commit = 'unknown'] = process.argv.slice(2);
if (!src) {
  console.error('usage: node scripts/gen-ndpi-libinjection-lists.mjs <nDPI checkout> [commit]');
  process.exit(2);
}
const dpi = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'src', 'dpi');
const read = (f) =>
  readFileSync(join(src, 'src/lib/third_party', f), 'latin1')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/[^\n]*/g, '');

// A C string or char literal's body starting after its quote at text[i]:
// [decoded value, index after the closing quote].
function literal(text, i, quote) {
  let s = '';
  const simple = { n: '\n', r: '\r', t: '\t', v: '\v', f: '\f', '\\': '\\', '"': '"', "'": "'", '?': '?' };
  for (; text[i] !== quote; i++) {
    if (text[i] === '\n' || text[i] === undefined) throw new Error('unterminated literal');
    if (text[i] !== '\\') {
      s += text[i];
      continue;
    }
    const e = text[++i];
    if (/[0-7]/.test(e)) {
      let o = e;
      while (o.length < 3 && /[0-7]/.test(text[i + 1])) o += text[++i];
      s += String.fromCharCode(parseInt(o, 8));
    } else if (e in simple) s += simple[e];
    else throw new Error(`escape \\${e} not handled`);
  }
  return [s, i + 1];
}

// The body of `<name>[] = { ... };` (comments already gone).
function body(text, name) {
  const m = text.match(new RegExp(`\\b${name}\\s*\\[[^\\]]*\\]\\s*=\\s*\\{`));
  if (!m) throw new Error(`${name} not found`);
  const end = text.indexOf('};', m.index);
  return text.slice(m.index + m[0].length, end);
}
const strings = (t) => {
  const out = [];
  for (let i = 0; i < t.length; i++) {
    if (t[i] !== '"') continue;
    const [s, j] = literal(t, i + 1, '"');
    out.push(s);
    i = j - 1;
  }
  return out;
};

// --- SQLi ---
const sqliData = read('include/libinjection_sqli_data.h');
const parsers = [...body(sqliData, 'char_parse_map').matchAll(/&parse_(\w+)/g)].map((m) => m[1]);
if (parsers.length !== 256) throw new Error(`char_parse_map: ${parsers.length} entries`);
const kw = body(sqliData, 'sql_keywords');
const words = [];
for (const m of kw.matchAll(/\{\s*"/g)) {
  const [w, j] = literal(kw, m.index + m[0].length, '"');
  const t = kw.slice(j).match(/^\s*,\s*'/);
  if (!t) throw new Error(`sql_keywords: no type after ${w}`);
  const [type] = literal(kw, j + t[0].length, "'");
  words.push([w, type]);
}
const n = Number(sqliData.match(/sql_keywords_sz\s*=\s*(\d+)/)?.[1]);
if (words.length !== n) throw new Error(`sql_keywords: ${words.length} entries, sql_keywords_sz ${n}`);
for (let i = 0; i < words.length; i++) {
  const [w, t] = words[i];
  // the lookup upper-cases its key's a-z and binary-searches: words must be
  // upper case, printable, strictly sorted bytewise
  if (!/^[\x20-\x7e]+$/.test(w) || /[a-z\t]/.test(w) || t.length !== 1) throw new Error(`sql_keywords: bad entry ${w}`);
  if (i && !(words[i - 1][0] < w)) throw new Error(`sql_keywords: not sorted at ${w}`);
}
let sqli = 'kind\tkey\tvalue\n';
parsers.forEach((p, b) => (sqli += `parser\t${b}\t${p}\n`));
for (const [w, t] of words) sqli += `word\t${w}\t${t}\n`;
writeFileSync(join(dpi, 'data', 'sqli.tsv'), sqli);

// --- XSS ---
const xssSrc = read('src/libinjection_xss.c');
const tags = strings(body(xssSrc, 'BLACKTAG'));
const attrTypes = { TYPE_BLACK: 'black', TYPE_ATTR_URL: 'url', TYPE_STYLE: 'style', TYPE_ATTR_INDIRECT: 'indirect' };
const attrs = [...body(xssSrc, 'BLACKATTR').matchAll(/\{\s*"([^"\\]*)"\s*,\s*(\w+)\s*\}/g)].map((m) => {
  if (!attrTypes[m[2]]) throw new Error(`BLACKATTR: type ${m[2]}`);
  return [m[1], attrTypes[m[2]]];
});
const urlFn = xssSrc.slice(xssSrc.indexOf('static int is_black_url('));
const urls = [...urlFn.slice(0, urlFn.indexOf('/* skip whitespace')).matchAll(/static const char\*\s*\w+\s*=\s*"([^"\\]*)"/g)].map((m) => m[1]);
if (!tags.length || !attrs.length || urls.length !== 4) throw new Error('xss lists: not found');
for (const v of [...tags, ...attrs.map(([a]) => a), ...urls]) if (!/^[A-Z][A-Z:-]*$/.test(v)) throw new Error(`xss: unexpected ${v}`);
let xss = 'kind\tname\ttype\n';
for (const t of tags) xss += `tag\t${t}\t-\n`;
for (const [a, t] of attrs) xss += `attribute\t${a}\t${t}\n`;
for (const u of urls) xss += `url\t${u}\t-\n`;
writeFileSync(join(dpi, 'data', 'xss.tsv'), xss);

const fps = words.filter(([, t]) => t === 'F').length;
console.log(`sqli.tsv: 256 parser rows, ${words.length} words (${fps} fingerprints); xss.tsv: ${tags.length} tags, ${attrs.length} attributes, ${urls.length} URL schemes; nDPI ${commit}`);
