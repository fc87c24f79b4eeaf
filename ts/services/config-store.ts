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
      d = loggedWrites(this.root.openDB({ name, encoding: 'msgpack' }), name);
      this.dbs.set(name, d);
    }
    return d as Database<V, string>;
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}

/** Whether an error is a write LMDB could not commit (a full disk …): the caller answers -6. */
export const isCommitError = (e: unknown) => !!e && typeof (e as { commitError?: unknown }).commitError === 'object';

/**
 * A write LMDB cannot commit rejects its promise with "Commit failed" and
 * a second promise, `commitError`, with the reason (ENOSPC …), which nobody
 * awaits: left so, it is an unhandled rejection and ends the process. Each
 * write's failure is logged here with that reason, once per failed commit;
 * the caller still gets the rejection.
 */
function loggedWrites<D extends Database>(d: D, name: string): D {
  const logged = new WeakSet<object>();
  const watch = <T>(p: Promise<T>): Promise<T> => {
    p.catch((e: { commitError?: Promise<unknown> }) => {
      const c = e?.commitError;
      if (!c || logged.has(c)) return;
      logged.add(c);
      c.catch((why: Error) => console.error(`flowgate: configuration store: a write to '${name}' was not stored: ${why?.message ?? why}`));
    });
    return p;
  };
  for (const m of ['put', 'remove', 'transaction', 'clearAsync', 'ifNoExists', 'ifVersion'] as const) {
    const orig = (d as unknown as Record<string, (...a: unknown[]) => unknown>)[m];
    if (typeof orig !== 'function') continue;
    (d as unknown as Record<string, unknown>)[m] = (...a: unknown[]) => {
      const r = orig.apply(d, a);
      return r instanceof Promise ? watch(r) : r;
    };
  }
  return d;
}
