// A minimal string key-value store for settings that must be shareable with
// other tools: the egress API's credentials (`<product>.user.<name>.password`)
// live here. Two backends: the LMDB environment in the data directory
// (default, no extra service needed) and Redis (so existing nProbe Cento
// Redis data works unchanged).
import { resolve } from 'node:path';

import { Redis } from 'ioredis';
import { open, type Database, type RootDatabase } from 'lmdb';

export interface Kv {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  del(key: string): Promise<void>;
  close(): Promise<void>;
  /** Human-readable location, e.g. `lmdb /var/lib/flowgate/config` or `redis://127.0.0.1:6379/0`. */
  readonly description: string;
}

/** The LMDB environment path inside a data directory (shared with the configuration store). */
export function lmdbEnvPath(dataDir: string): string {
  return resolve(dataDir, 'config');
}

/** The named database inside the environment that holds the KV pairs. */
export const LMDB_KV_DB = 'kv';

/**
 * Opens (creating if needed) the LMDB environment at `path` (a directory) and
 * returns a KV that owns it. Inside the service, where ConfigStore already has
 * the environment open, use lmdbKv(store.root) instead: LMDB must not be
 * opened twice by one process.
 */
export function openLmdbKv(path: string): Kv {
  const abs = resolve(path);
  let root: RootDatabase;
  try {
    // Same options as the configuration store (ConfigStore), which opens this environment too.
    root = open({ path: abs, maxDbs: 32, compression: false });
  } catch (e) {
    throw new Error(`cannot open LMDB environment ${abs}: ${(e as Error).message}`);
  }
  return lmdbKvOn(root, { owned: true, description: `lmdb ${abs}` });
}

/**
 * A KV on an environment someone else opened (the configuration store).
 * close() leaves the environment open unless `owned` is set: its owner closes it.
 */
export function lmdbKv(root: RootDatabase, opts: { owned?: boolean; description?: string } = {}): Kv {
  return lmdbKvOn(root, opts);
}

function lmdbKvOn(root: RootDatabase, opts: { owned?: boolean; description?: string }): Kv {
  // Plain, uncompressed UTF-8 values (not msgpack) so mdb_dump and other tools read them as text.
  const db: Database<string, string> = root.openDB<string, string>({ name: LMDB_KV_DB, encoding: 'string', compression: false });
  let closed = false;
  return {
    description: opts.description ?? `lmdb ${(root as unknown as { path?: string }).path ?? '(environment)'}`,
    async get(key) {
      const v = db.get(key);
      return v === undefined || v === null ? undefined : String(v);
    },
    async set(key, value) {
      await db.put(key, value);
    },
    async del(key) {
      await db.remove(key);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (opts.owned) await root.close();
    },
  };
}

export interface RedisTarget {
  host?: string;
  port?: number;
  db?: number;
  username?: string;
  password?: string;
}

/** Parses `redis://[user:pass@]host[:port][/db]`. */
export function parseRedisUrl(url: string): Required<Pick<RedisTarget, 'host' | 'port' | 'db'>> & RedisTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`invalid Redis URL '${url}' (expected redis://host:port[/db])`);
  }
  if (u.protocol !== 'redis:') throw new Error(`invalid Redis URL '${url}' (expected redis://host:port[/db])`);
  if (!u.hostname) throw new Error(`invalid Redis URL '${url}': no host`);
  const port = u.port === '' ? 6379 : Number(u.port);
  const path = u.pathname.replace(/^\/+/, '').replace(/\/+$/, '');
  if (!/^\d*$/.test(path)) throw new Error(`invalid Redis URL '${url}': database must be a number (got '${path}')`);
  const db = path === '' ? 0 : Number(path);
  // URL keeps the brackets of IPv6 literals; the socket wants the bare address.
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    host,
    port,
    db,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
  };
}

function redisDescription(t: { host: string; port: number; db: number }): string {
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return `redis://${host}:${t.port}/${t.db}`;
}

/**
 * Connects to Redis and returns once the connection is up. Fails within
 * `connectTimeoutMs` (default 3 s) on a wrong address instead of retrying
 * forever; after the first successful connection ioredis reconnects on its own,
 * and commands issued while disconnected fail at once rather than queueing.
 */
export async function openRedisKv(target: string | RedisTarget, opts: { connectTimeoutMs?: number } = {}): Promise<Kv> {
  const t =
    typeof target === 'string'
      ? parseRedisUrl(target)
      : { host: target.host ?? '127.0.0.1', port: target.port ?? 6379, db: target.db ?? 0, username: target.username, password: target.password };
  if (!Number.isInteger(t.port) || t.port < 1 || t.port > 65535) throw new Error(`invalid Redis port ${t.port}`);
  if (!Number.isInteger(t.db) || t.db < 0) throw new Error(`invalid Redis database ${t.db}`);
  const description = redisDescription(t);
  const timeout = opts.connectTimeoutMs ?? 3000;

  let connectedOnce = false;
  let lastError: Error | undefined;
  const client = new Redis({
    host: t.host,
    port: t.port,
    db: t.db,
    username: t.username,
    password: t.password,
    lazyConnect: true,
    connectTimeout: timeout,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // No retries until the first connection worked: a wrong address is an error, not a wait.
    retryStrategy: (times) => (connectedOnce ? Math.min(times * 200, 2000) : null),
  });
  // Without a listener ioredis prints "Unhandled error event" for every failed reconnect.
  client.on('error', (e: Error) => {
    lastError = e;
  });

  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.connect(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeout} ms`)), timeout + 500);
      }),
    ]);
    // connect() resolves on the socket; make sure the server answers (auth, db select).
    await client.ping();
    connectedOnce = true;
  } catch (e) {
    client.disconnect();
    // ioredis rejects connect() with a generic "Connection is closed."; the socket error says why.
    const why = lastError?.message ?? (e as Error).message;
    throw new Error(`cannot connect to Redis at ${description}: ${why}`);
  } finally {
    clearTimeout(timer);
  }

  let closed = false;
  return {
    description,
    async get(key) {
      const v = await client.get(key);
      return v ?? undefined;
    },
    async set(key, value) {
      await client.set(key, value);
    },
    async del(key) {
      await client.del(key);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.quit();
      } catch {
        client.disconnect();
      }
    },
  };
}

export const KV_FORMS = "'lmdb', 'lmdb:<path>' or 'redis://host:port[/db]'";

/**
 * Opens the store named by `--kv`: undefined or 'lmdb' → `<dataDir>/config`,
 * 'lmdb:<path>' → that environment, 'redis://…' → Redis.
 */
export async function openKv(url: string | undefined, dataDir: string, opts: { connectTimeoutMs?: number } = {}): Promise<Kv> {
  if (url === undefined || url === 'lmdb') return openLmdbKv(lmdbEnvPath(dataDir));
  if (url.startsWith('lmdb:')) {
    const path = url.slice('lmdb:'.length);
    if (!path) throw new Error(`'lmdb:' needs a path (accepted: ${KV_FORMS})`);
    return openLmdbKv(path);
  }
  if (url.startsWith('redis://')) return openRedisKv(url, opts);
  throw new Error(`unsupported key-value store '${url}' (accepted: ${KV_FORMS})`);
}
