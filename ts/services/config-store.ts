// ⑧ Configuration lives in one LMDB environment (<data-dir>/config), one
// named database per domain (users, sessions, tokens, host aliases, the
// egress credentials 'kv' …). LMDB because writes are rare, reads are many
// and must not block the API, and a crash never leaves a half-written file.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { open, type Database, type RootDatabase } from 'lmdb';

export class ConfigStore {
  readonly root: RootDatabase;
  private readonly dbs = new Map<string, Database>();

  constructor(readonly dataDir: string) {
    const path = join(dataDir, 'config');
    mkdirSync(path, { recursive: true });
    this.root = open({ path, maxDbs: 32, compression: false });
  }

  db<V = unknown>(name: string): Database<V, string> {
    let d = this.dbs.get(name);
    if (!d) {
      d = this.root.openDB({ name, encoding: 'msgpack' });
      this.dbs.set(name, d);
    }
    return d as Database<V, string>;
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
