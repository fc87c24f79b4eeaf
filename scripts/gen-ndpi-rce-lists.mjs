// Rebuilds native/src/dpi/data/rce-injection.tsv from an nDPI source tree:
//   node scripts/gen-ndpi-rce-lists.mjs <nDPI checkout> [commit]
// then `node scripts/gen-dpi-tables.mjs` (rce-injection.inc).
//
// nDPI's "RCE Injection" URL check (ndpi_is_rce_injection) uses three tables
// from src/lib/third_party/include/rce_injection.h, taken by nDPI from the
// OWASP ModSecurity Core Rule Set (REQUEST-932-APPLICATION-ATTACK-RCE): the
// PCRE patterns of rce_regex[], the Unix shell snippets of ush_commands[] and
// the PowerShell names of pwsh_commands[]. They are read here as data: each
// C string literal decoded (adjacent literals joined), one row per entry.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [src, commit = 'unknown'] = process.argv.slice(2);
if (!src) {
  console.error('usage: node scripts/gen-ndpi-rce-lists.mjs <nDPI checkout> [commit]');
  process.exit(2);
}
const dpi = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'src', 'dpi');
const text = readFileSync(join(src, 'src/lib/third_party/include/rce_injection.h'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/\/\/[^\n]*/g, '');

// The entries of `static const char *<name>[...] = { ... };`.
function array(name) {
  const m = text.match(new RegExp(`\\b${name}\\s*\\[[^\\]]*\\]\\s*=\\s*\\{`));
  if (!m) throw new Error(`${name} not found`);
  const out = [];
  let cur = null;
  for (let i = m.index + m[0].length; ; i++) {
    const ch = text[i];
    if (ch === undefined) throw new Error(`${name}: no closing brace`);
    if (ch === '}') break;
    if (ch === ',') {
      if (cur !== null) out.push(cur);
      cur = null;
    } else if (ch === '"') {
      let s = '';
      for (i++; text[i] !== '"'; i++) {
        if (text[i] === '\n' || text[i] === undefined) throw new Error(`${name}: unterminated string`);
        if (text[i] !== '\\') {
          s += text[i];
          continue;
        }
        const e = text[++i];
        const simple = { n: '\n', r: '\r', t: '\t', '\\': '\\', '"': '"', "'": "'", '?': '?' };
        if (!(e in simple)) throw new Error(`${name}: escape \\${e} not handled`);
        s += simple[e];
      }
      cur = (cur ?? '') + s;
    } else if (!/\s/.test(ch)) {
      throw new Error(`${name}: unexpected ${ch}`);
    }
  }
  if (cur !== null) out.push(cur);
  for (const v of out) if (!/^[\x20-\x7e]+$/.test(v)) throw new Error(`${name}: entry not printable ASCII: ${v}`);
  return out;
}

const n = Number(text.match(/#define\s+N_RCE_REGEX\s+(\d+)/)?.[1]);
const regex = array('rce_regex');
if (regex.length !== n) throw new Error(`rce_regex: ${regex.length} entries, N_RCE_REGEX ${n}`);
const rows = [
  ...regex.map((v) => ['regex', v]),
  ...array('ush_commands').map((v) => ['ush', v]),
  ...array('pwsh_commands').map((v) => ['pwsh', v]),
];
let out = 'kind\tvalue\n';
for (const [k, v] of rows) out += `${k}\t${v}\n`;
writeFileSync(join(dpi, 'data', 'rce-injection.tsv'), out);
console.log(`rce-injection.tsv: ${rows.length} rows (${regex.length} patterns) from nDPI ${commit}`);
