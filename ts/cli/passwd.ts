// `flowgate passwd <user>`: stores an egress API password in the key-value
// store (LMDB in the data directory, or Redis) in the Cento-compatible
// `sha256:<salt>:<hash>` form. Prompts twice without echo on a terminal;
// otherwise reads the first line of stdin, so scripts can pipe it in.
import { createInterface } from 'node:readline';
import { Writable, type Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { parseArgs } from 'node:util';

import { DEFAULT_PRODUCT, hashPassword, passwordKey, validateProduct } from '../egress/credentials.js';
import { KV_FORMS, openKv, openRedisKv, parseRedisUrl, type Kv } from '../services/kv.js';

const USAGE = `Usage: flowgate passwd <user> [options]

Sets the egress API password of <user>. On a terminal the password is asked
twice without echo; otherwise the first line of standard input is used.

      --kv <store>            'lmdb' (default: <data-dir>/config), 'lmdb:<path>' or 'redis://host:port[/db]'
      --redis-host <host>     Redis host (instead of --kv redis://…)
      --redis-port <port>     Redis port (default 6379)
      --product <word>        key prefix: <word>.user.<user>.password (default ${DEFAULT_PRODUCT})
      --data-dir <dir>        data directory (default ./data)
  -h, --help                  this help
`;

export interface PasswdIo {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  stdout: Writable;
  stderr: Writable;
}

/** The first line of a stream (without its line ending); '' if the stream is empty. */
export function readFirstLine(input: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    const finish = (s: string) => {
      cleanup();
      // Stop reading, and let a still-open pipe (`(echo pw; sleep 60) | …`) not keep the process alive.
      input.pause();
      (input as { unref?: () => void }).unref?.();
      resolve(s.replace(/\r$/, ''));
    };
    const onData = (chunk: Buffer | string) => {
      text += typeof chunk === 'string' ? chunk : decoder.write(chunk);
      const nl = text.indexOf('\n');
      if (nl >= 0) finish(text.slice(0, nl));
    };
    const onEnd = () => finish(text + decoder.end());
    const onError = (e: Error) => {
      cleanup();
      reject(e);
    };
    const cleanup = () => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onError);
    };
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onError);
    input.resume();
  });
}

/** Asks for the password twice on a terminal, echo off. Rejects on mismatch, Ctrl-C or Ctrl-D. */
export async function promptPassword(input: Readable, output: Writable, user: string): Promise<string> {
  // readline echoes typed characters (and redraws the line) on its output: give it
  // one that drops everything, and write the prompts ourselves.
  const sink = new Writable({ write: (_chunk, _encoding, cb) => cb() });
  const rl = createInterface({ input, output: sink, terminal: true });
  const ask = (prompt: string) =>
    new Promise<string>((resolve, reject) => {
      const onClose = () => reject(new Error('no password entered'));
      rl.once('close', onClose);
      rl.once('SIGINT', () => reject(new Error('interrupted')));
      rl.question('', (answer) => {
        rl.off('close', onClose);
        output.write('\n');
        resolve(answer);
      });
      // After question(): a line typed ahead must find the question waiting.
      output.write(prompt);
    });
  try {
    const first = await ask(`Password for ${user}: `);
    if (first === '') return '';
    const second = await ask('Retype password: ');
    if (first !== second) throw new Error('passwords do not match');
    return first;
  } finally {
    rl.close();
  }
}

/** Reads the new password from a terminal (prompting) or from the first line of a pipe/file. */
export function readPassword(io: PasswdIo, user: string): Promise<string> {
  return io.stdin.isTTY ? promptPassword(io.stdin, io.stderr, user) : readFirstLine(io.stdin);
}

/** Stores `password` for `user`; returns the stored value. */
export async function setPassword(kv: Kv, product: string, user: string, password: string): Promise<string> {
  const value = hashPassword(password);
  await kv.set(passwordKey(product, user), value);
  return value;
}

function checkUser(user: string): void {
  if (user === '') throw new Error('the user name is empty');
  // Basic auth ends the user name at the first colon: such a user could never log in.
  if (user.includes(':')) throw new Error(`the user name may not contain ':' (got '${user}')`);
  if (/[\s\x00-\x1f\x7f]/.test(user)) throw new Error('the user name may not contain spaces or control characters');
}

export async function passwdMain(
  argv: string[],
  io: PasswdIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const fail = (msg: string) => {
    io.stderr.write(`flowgate passwd: ${msg}\n`);
    return 1;
  };
  let args;
  try {
    args = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        kv: { type: 'string' },
        product: { type: 'string' },
        'data-dir': { type: 'string' },
        'redis-host': { type: 'string' },
        'redis-port': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (e) {
    return fail(`${(e as Error).message}\n\n${USAGE}`);
  }
  const o = args.values;
  if (o.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (args.positionals.length !== 1) return fail(`expected exactly one user name\n\n${USAGE}`);
  const user = args.positionals[0]!;
  const product = o.product ?? DEFAULT_PRODUCT;
  const dataDir = o['data-dir'] ?? './data';

  // Check everything that needs no password before asking for one.
  let open: () => Promise<Kv>;
  try {
    checkUser(user);
    validateProduct(product);
    if (o['redis-host'] !== undefined || o['redis-port'] !== undefined) {
      if (o.kv !== undefined) throw new Error('use either --kv or --redis-host/--redis-port, not both');
      const port = o['redis-port'] === undefined ? 6379 : Number(o['redis-port']);
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`--redis-port must be 1-65535 (got '${o['redis-port']}')`);
      const host = o['redis-host'] ?? '127.0.0.1';
      open = () => openRedisKv({ host, port });
    } else {
      const spec = o.kv;
      if (spec !== undefined && spec !== 'lmdb' && !spec.startsWith('lmdb:') && !spec.startsWith('redis://')) {
        throw new Error(`unsupported --kv '${spec}' (accepted: ${KV_FORMS})`);
      }
      if (spec?.startsWith('redis://')) parseRedisUrl(spec);
      open = () => openKv(spec, dataDir);
    }
  } catch (e) {
    return fail((e as Error).message);
  }

  let password: string;
  try {
    password = await readPassword(io, user);
  } catch (e) {
    return fail((e as Error).message);
  }
  if (password === '') return fail('empty password, nothing changed');

  let kv: Kv | undefined;
  try {
    kv = await open();
    await setPassword(kv, product, user, password);
    io.stdout.write(`password set for ${user} (${kv.description})\n`);
    return 0;
  } catch (e) {
    return fail((e as Error).message);
  } finally {
    await kv?.close().catch(() => {});
  }
}
