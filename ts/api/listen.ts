// Serving a Hono app on a port: HTTP, or HTTPS when a certificate is given.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';

export interface ListenOptions {
  port: number;
  bind?: string;
  /** PEM certificate and key files: serve HTTPS */
  tlsCert?: string;
  tlsKey?: string;
}

export interface Listening {
  server: ServerType;
  url: string;
  close(): Promise<void>;
}

export async function listen(app: { fetch: Hono['fetch'] }, o: ListenOptions): Promise<Listening> {
  const tls = o.tlsCert ? { cert: readFileSync(o.tlsCert), key: readFileSync(o.tlsKey ?? o.tlsCert) } : null;
  const hostname = o.bind ?? '0.0.0.0';
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve(
      tls
        ? { fetch: app.fetch, port: o.port, hostname, createServer: createHttpsServer, serverOptions: tls }
        : { fetch: app.fetch, port: o.port, hostname },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const host = hostname === '0.0.0.0' || hostname === '::' ? '127.0.0.1' : hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    server,
    url: `${tls ? 'https' : 'http'}://${host}:${addr.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
