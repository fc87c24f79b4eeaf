// Rebuilds native/src/dpi/data/dga-ngrams.tsv from an nDPI source tree:
//   node scripts/gen-ndpi-dga-lists.mjs <nDPI checkout> [commit]
// then `node scripts/gen-dpi-tables.mjs` (dga-ngrams.inc).
//
// nDPI's "Susp DGA Domain name" heuristic (ndpi_check_dga_name) tests names
// against three letter tables in src/lib/ndpi_dga_match.c.inc:
// ndpi_en_bigrams, ndpi_en_impossible_bigrams and ndpi_en_trigrams. Entries
// nDPI comments out (e.g. "cv", "vm" among the impossible pairs) are not
// in its tables, nor the trigram rows under `#if 0`: both are stripped
// before the literals are read.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [src, commit = 'unknown'] = process.argv.slice(2);
if (!src) {
  console.error('usage: node scripts/gen-ndpi-dga-lists.mjs <nDPI checkout> [commit]');
  process.exit(2);
}
const dpi = join(dirname(fileURLToPath(import.meta.url)), '..', 'native', 'src', 'dpi');
const text = readFileSync(join(src, 'src/lib/ndpi_dga_match.c.inc'), 'utf8')
  .replace(/\/\*[\s\S]*?\*\//g, '')
  .replace(/\/\/[^\n]*/g, '')
  .replace(/^#if 0\n[\s\S]*?^#endif\n/gm, ''); // rows nDPI compiles out

// The string literals of `static const char *<name>[] = { ... };`, each n letters.
function array(name, n) {
  const m = text.match(new RegExp(`\\b${name}\\s*\\[[^\\]]*\\]\\s*=\\s*\\{([^}]*)\\}`));
  if (!m) throw new Error(`${name} not found`);
  const body = m[1].replace(/"([^"\\\n]*)"/g, (_, s) => {
    if (!new RegExp(`^[a-z]{${n}}$`).test(s)) throw new Error(`${name}: bad entry ${JSON.stringify(s)}`);
    return ` ${s} `;
  });
  const rest = body.replace(/\b[a-z]+\b/g, '').replace(/NULL/g, '');
  const odd = rest.match(/[^\s,]+/);
  if (odd) throw new Error(`${name}: unexpected text ${odd[0]}`);
  return [...new Set(body.match(/\b[a-z]+\b/g))];
}

const rows = [
  ['bigram', array('ndpi_en_bigrams', 2)],
  ['impossible_bigram', array('ndpi_en_impossible_bigrams', 2)],
  ['trigram', array('ndpi_en_trigrams', 3)],
];
let out = 'kind\tngrams\n';
for (const [k, list] of rows) out += `${k}\t${list.join(' ')}\n`;
writeFileSync(join(dpi, 'data', 'dga-ngrams.tsv'), out);
console.log(`dga-ngrams.tsv (nDPI ${commit}): ${rows.map(([k, l]) => `${l.length} ${k}s`).join(', ')}`);
