// Disk full (hardening): the service's data directory on a small tmpfs the
// test fills. A change that cannot be committed answers -6 saying so and is
// logged with the reason; the process keeps running and serving reads; once
// space is back the same change works. Needs root and mount (a tmpfs); skipped otherwise.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { buildDist, freePort, spawnFlowgate, type Flowgate } from './fixtures/egress.js';
import { ETH, IPPROTO, MAC_A, MAC_B, eth, ipv4, udp } from './fixtures/frames.js';
import { pcap, sec, tempDir } from './fixtures/pcap.js';

/** Root and allowed to mount a tmpfs here (a container may not be): else the suite is skipped. */
const canMount = (() => {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(join(tmpdir(), 'flowgate-mountprobe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();
const PW = 'Adm1n-disk-full!';

describe.skipIf(!canMount)('a full data disk', () => {
  const tmp = tempDir('flowgate-full-');
  const mnt = mkdtempSync(join(tmpdir(), 'flowgate-fullmnt-'));
  let f: Flowgate, port: number;
  beforeAll(async () => {
    buildDist();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mnt]);
    const file = tmp.file('one.pcap', pcap([{ tsNs: sec(1_700_000_000), data: eth(MAC_B, MAC_A, ETH.IPV4, ipv4({ src: '10.0.0.1', dst: '10.0.0.2', proto: IPPROTO.UDP }, udp({ sport: 1000, dport: 2000 }, Buffer.from('x')))) }]));
    port = await freePort();
    f = spawnFlowgate(['-q', '-i', file, '--http-port', String(port), '--egress-port', '0', '--bind', '127.0.0.1', '--data-dir', join(mnt, 'data')], { FLOWGATE_ADMIN_PASSWORD: PW });
    await f.waitFor(/monitoring API on/, 30_000);
  }, 90_000);
  afterAll(async () => {
    await f?.stop();
    try {
      execFileSync('umount', [mnt]);
    } catch {
      /* not mounted */
    }
    rmSync(mnt, { recursive: true, force: true });
    tmp.cleanup();
  });

  const call = async (path: string, form?: Record<string, string>, query = '') => {
    const res = await fetch(`http://127.0.0.1:${port}/lua/rest/v2/${path}.lua${query}`, {
      method: form ? 'POST' : 'GET',
      headers: { authorization: `Basic ${Buffer.from(`admin:${PW}`).toString('base64')}`, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    return { status: res.status, body: (await res.json()) as { rc: number; rc_str_hr: string; rc_str_detail?: string } };
  };
  const addUser = (name: string) => call('add/monitor/user', { username: name, full_name: name, password: 'Passw0rd-long', confirm_password: 'Passw0rd-long', user_role: 'unprivileged' });

  it('a change that cannot be written is -6 saying so; the process serves on; it works once space is back', async () => {
    expect((await addUser('before')).body.rc).toBe(0);
    const filler = join(mnt, 'filler');
    try {
      execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M', 'count=64'], { stdio: 'ignore' });
    } catch {
      /* dd stops at "No space left on device" */
    }
    let refused: Awaited<ReturnType<typeof call>> | undefined;
    // LMDB may still have free pages in its file: add until a commit fails
    for (let i = 0; i < 300 && !refused; i++) {
      const r = await addUser(`u${i}`);
      if (r.body.rc !== 0) refused = r;
    }
    expect(refused, 'no write failed on a full disk').toBeDefined();
    expect([refused!.status, refused!.body.rc]).toEqual([500, -6]);
    expect(refused!.body.rc_str_detail).toMatch(/could not be stored/);
    await f.waitFor(/configuration store: a write to 'users' was not stored: No space left on device/, 10_000);
    // alive and serving
    expect(f.proc.exitCode).toBeNull();
    expect((await call('get/interface/data', undefined, '?ifid=0')).body.rc).toBe(0);
    unlinkSync(filler);
    expect((await addUser('after')).body.rc).toBe(0);
    expect(f.proc.exitCode).toBeNull();
  });
});
