// Starting the monitoring API: configuration store, first administrator,
// rate sampler, the Hono app, the listening socket. One log line per step.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { listen } from '../api/listen.js';
import { createMonitoringApp } from '../api/server.js';
import { ConfigStore } from '../services/config-store.js';
import type { Interfaces } from '../services/interfaces.js';
import { Rates } from '../services/rates.js';
import { SystemStats } from '../services/system.js';
import { Users } from '../services/users.js';

export interface MonitoringApiOptions {
  port: number;
  bind?: string;
  dataDir: string;
  tlsCert?: string;
  tlsKey?: string;
  adminPassword?: string;
  debug?: boolean;
  /** where startup lines go (default stdout) */
  print?: (line: string) => void;
}

export interface MonitoringApi {
  url: string;
  store: ConfigStore;
  users: Users;
  close(): Promise<void>;
}

export async function startMonitoringApi(ifaces: Interfaces, o: MonitoringApiOptions): Promise<MonitoringApi> {
  const print = o.print ?? ((l: string) => console.log(l));
  const dataDir = resolve(o.dataDir);
  const store = new ConfigStore(dataDir);
  try {
    // allowed_interface is given as an ifid (ntopng's form) or a name
    const users = new Users(store, (v) => {
      const byId = /^\d+$/.test(v) ? ifaces.get(Number(v)) : undefined;
      return byId?.ifname ?? ifaces.list.find((i) => i.ifname === v)?.ifname ?? null;
    });
    const admin = await users.ensureAdmin(o.adminPassword);
    // A generated password is shown once and kept (mode 0600) where the
    // operator can read it again, until they change it.
    const pwFile = join(dataDir, 'admin-password');
    if (admin.created && admin.generated) writeFileSync(pwFile, `${admin.password}\n`, { mode: 0o600 });
    const rates = new Rates(ifaces).start();
    const app = createMonitoringApp(
      { interfaces: ifaces, users, store, rates, system: new SystemStats(), startedAt: Date.now() },
      { log: (l) => console.error(l), debug: o.debug },
    );
    const srv = await listen(app, { port: o.port, bind: o.bind, tlsCert: o.tlsCert, tlsKey: o.tlsKey });
    print(`flowgate: monitoring API on ${srv.url}/lua/rest/v2/ (data directory ${dataDir})`);
    if (admin.created && admin.generated) {
      print(`flowgate: created user admin with password ${admin.password} (also in ${pwFile}; change it with edit/ntopng/user.lua)`);
    } else if (admin.created) {
      print('flowgate: created user admin with the password given (--admin-password / FLOWGATE_ADMIN_PASSWORD)');
    } else if (existsSync(pwFile)) {
      const pw = readFileSync(pwFile, 'utf8').trim();
      if (await users.verify('admin', pw)) print(`flowgate: user admin, password in ${pwFile}`);
      else rmSync(pwFile, { force: true });
    }
    print(`flowgate: try: curl -u admin:<password> '${srv.url}/lua/rest/v2/get/interface/data.lua?ifid=0'`);
    return {
      url: srv.url,
      store,
      users,
      close: async () => {
        rates.stop();
        await srv.close();
        await store.close();
      },
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}
