// `npm install` hook: make sure the system has what the native build needs
// (installing it with apt-get when running as root), then build the addon
// with cmake-js and compile the TypeScript.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const need = [];
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
if (!has('cmake')) need.push('cmake');
if (!has('g++') && !has('c++')) need.push('g++');
if (!has('make')) need.push('make');
if (!['/usr/include/pcap/pcap.h', '/usr/local/include/pcap/pcap.h'].some(existsSync)) need.push('libpcap-dev');
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
const jobs = String(Math.max(1, (await import('node:os')).availableParallelism()));
run(bin('cmake-js'), ['compile', '-d', 'native', '-O', 'build', '--parallel', jobs, '-l', 'error']);
run(bin('tsc'), ['-p', 'tsconfig.json']);
