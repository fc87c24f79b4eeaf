// `npm install` hook: make sure the system has what the native build needs
// (installing it with apt-get when running as root), then build the addon
// with cmake-js, the web dashboard with esbuild, and compile the TypeScript.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const need = [];
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
if (!has('cmake')) need.push('cmake');
if (!has('g++') && !has('c++')) need.push('g++');
if (!has('make')) need.push('make');
if (!['/usr/include/pcap/pcap.h', '/usr/local/include/pcap/pcap.h'].some(existsSync)) need.push('libpcap-dev');
if (!['/usr/include/pcre2.h', '/usr/local/include/pcre2.h'].some(existsSync)) need.push('libpcre2-dev');
if (!['/usr/include/openssl/evp.h', '/usr/local/include/openssl/evp.h'].some(existsSync)) need.push('libssl-dev');

if (need.length) {
  const isRoot = process.getuid?.() === 0;
  if (isRoot && has('apt-get')) {
    console.log(`flowgate: installing ${need.join(' ')} with apt-get`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', '-qq', ...need], { stdio: 'inherit', env });
  } else {
    console.error(`flowgate: missing system packages, install them first: ${need.join(' ')}`);
    process.exit(1);
  }
}

const bin = (name) => join(root, 'node_modules', '.bin', name);
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
// Work already done is skipped (npx re-runs this script in its cache): each
// step keeps a hash of its inputs next to its output and runs again only
// when they changed or the output is gone.
function inputsHash(paths) {
  const h = createHash('sha256');
  const walk = (p) => {
    if (!existsSync(p)) return;
    if (statSync(p).isDirectory()) for (const e of readdirSync(p).sort()) walk(join(p, e));
    else h.update(p.slice(root.length)).update(readFileSync(p));
  };
  for (const p of paths) walk(join(root, p));
  return h.digest('hex');
}
function step(name, inputs, output, stampFile, fn) {
  const hash = inputsHash(inputs);
  const stamp = join(root, stampFile);
  if (existsSync(join(root, output)) && existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) {
    console.log(`flowgate: ${name} is up to date`);
    return;
  }
  fn();
  writeFileSync(stamp, hash);
}
const jobs = String(Math.max(1, (await import('node:os')).availableParallelism()));
step('native addon', ['native', 'package.json'], 'build/Release/flowgate.node', 'build/.inputs-sha256', () =>
  run(bin('cmake-js'), ['compile', '-d', 'native', '-O', 'build', '--parallel', jobs, '-l', 'error']),
);
step('dashboard', ['web', 'scripts/build-web.mjs', 'package.json'], 'dist/web/index.html', 'dist/.web-inputs-sha256', () => run(process.execPath, [join(root, 'scripts', 'build-web.mjs')]));
step('TypeScript', ['ts', 'bench', 'test', 'tsconfig.json', 'package.json'], 'dist/ts/cli/main.js', 'dist/.inputs-sha256', () => run(bin('tsc'), ['-p', 'tsconfig.json']));
