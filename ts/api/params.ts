// Request parameters, read alike from the query string, a form body or a
// JSON body (ntopng's _GET merges them the same way), then checked against
// the route's zod shape. ntopng passes everything as text, so the types here
// accept text forms ("1", "true") as well as JSON numbers and booleans.
import type { Context } from 'hono';
import { z } from 'zod';

import { ApiError, RC } from './rc.js';

export type RawParams = Record<string, unknown>;

/** Request bodies larger than this are refused (-5, HTTP 413). */
export const MAX_BODY_BYTES = 1 << 20;

/**
 * A request header, read from node's IncomingMessage when served by
 * @hono/node-server: asking Hono's request for headers builds a full fetch
 * Request (~50 µs a call, more than the rest of a request's work).
 */
export function header(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: { headers: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
  if (!incoming) return c.req.header(name);
  const v = incoming.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Names that would reach an object's prototype, refused as parameter names (and `__proto__` anywhere in a JSON body). */
const PROTO_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function put(out: RawParams, k: string, v: unknown): void {
  if (PROTO_KEYS.has(k)) throw new ApiError(RC.INVALID_ARGUMENTS, `'${k}' is not a parameter name`);
  out[k] = v;
}

/** JSON text parsed with every `__proto__` key refused (parameter objects are data, never prototypes). */
export function parseJsonData(text: string): unknown {
  return JSON.parse(text, (k, v) => {
    if (k === '__proto__') throw new ApiError(RC.INVALID_ARGUMENTS, "'__proto__' is not allowed as a JSON key");
    return v;
  });
}

/** The JSON text of a parameter: -5 naming it when it is not JSON (or holds a '__proto__' key). */
export function jsonParam(text: string, what: string): unknown {
  try {
    return parseJsonData(text);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(RC.INVALID_ARGUMENTS, `${what} is not valid JSON`);
  }
}

/**
 * Every parameter of a request, in an object without a prototype: a key
 * like `__proto__` can neither reach Object.prototype nor lend inherited
 * values (such names are refused, -5).
 */
export async function readParams(c: Context): Promise<RawParams> {
  const out: RawParams = Object.create(null);
  const q = c.req.url.indexOf('?');
  if (q >= 0) for (const [k, v] of new URLSearchParams(c.req.url.slice(q + 1))) put(out, k, v);
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return out;

  const rawType = header(c, 'content-type') ?? '';
  const type = rawType.toLowerCase();
  const text = await readBody(c);
  if (!text.trim()) return out;
  if (type.includes('application/json') || (!type && /^\s*[{[]/.test(text))) {
    let body: unknown;
    try {
      body = parseJsonData(text);
    } catch (e) {
      if (e instanceof ApiError) throw e;
      throw new ApiError(RC.BAD_FORMAT, 'request body is not valid JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(RC.BAD_FORMAT, 'JSON body must be an object of parameters');
    }
    for (const [k, v] of Object.entries(body)) put(out, k, v);
  } else if (type.includes('multipart/form-data')) {
    // the boundary is case-sensitive: the header as sent
    let form: FormData;
    try {
      form = await new Response(text, { headers: { 'content-type': rawType } }).formData();
    } catch {
      throw new ApiError(RC.BAD_FORMAT, 'multipart body could not be parsed (boundary missing or not matching the parts)');
    }
    for (const [k, v] of form) put(out, k, typeof v === 'string' ? v : await v.text());
  } else {
    for (const [k, v] of new URLSearchParams(text)) put(out, k, v);
  }
  return out;
}

/** The body as text, refused as soon as it passes MAX_BODY_BYTES (chunked bodies included). */
async function readBody(c: Context): Promise<string> {
  const tooBig = () => new ApiError(RC.INVALID_ARGUMENTS, `request body larger than ${MAX_BODY_BYTES} bytes`);
  if (Number(header(c, 'content-length') ?? 0) > MAX_BODY_BYTES) throw tooBig();
  const body = c.req.raw.body;
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      // Stop reading but do not cancel: cancelling destroys the socket before
      // the answer leaves; node discards the rest of an unread body itself.
      reader.releaseLock();
      c.header('Connection', 'close');
      throw tooBig();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const blankToUndef = (v: unknown) => (v === '' || v === null ? undefined : v);

/** Integer given as a number or as text. */
export const int = (min = -(2 ** 53), max = 2 ** 53) =>
  z.preprocess(
    (v) => {
      v = blankToUndef(v);
      if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
      return v;
    },
    z.number().int().min(min).max(max),
  );

/** ntopng booleans: true/false, 1/0, yes/no, on/off (text or JSON). */
export const bool = () =>
  z.preprocess(
    (v) => {
      v = blankToUndef(v);
      if (typeof v === 'number') return v !== 0;
      if (typeof v === 'string') {
        const s = v.trim().toLowerCase();
        if (['true', '1', 'yes', 'on'].includes(s)) return true;
        if (['false', '0', 'no', 'off'].includes(s)) return false;
      }
      return v;
    },
    z.boolean(),
  );

// ntopng reads most flags of read-only requests without ever refusing one, in
// one of three ways; a client that sends Python's `True` / `False` (ntopng's own
// python client does) must get what ntopng answers it, so such flags follow
// ntopng's rule exactly. `bool()` stays for the flags that change state.

/** ntopng's `_GET[x] == "true"`: only the text `true` (or JSON true) is true; any other value is false. */
export const isTrue = () => z.preprocess((v) => v === true || v === 'true', z.boolean());

/** ntopng's `toboolean()`: `true` or `1` (text or JSON) is true; any other value is false. */
export const toBool = () => z.preprocess((v) => v === true || v === 'true' || v === 1 || v === '1', z.boolean());

/** A flag ntopng tests by presence (`_GET[x] ~= nil`, `not isEmptyString(...)`): any value given is true. */
export const given = () => z.preprocess((v) => v !== undefined, z.boolean());

/** Text with a length cap (what ntopng's string parameters take). */
export const str = (max = 256) =>
  z.preprocess((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), z.string().max(max));

export const oneOf = <T extends string>(values: readonly [T, ...T[]]) =>
  z.preprocess((v) => (typeof v === 'string' ? v.trim() : v), z.enum(values));

/** A table's own entry for a key taken from a request (never one of Object.prototype's members). */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Checks raw parameters against a route's schema (built once per route: zod compiles it). */
export function parseParams<S extends z.ZodRawShape>(schema: z.ZodObject<S>, raw: RawParams): z.infer<z.ZodObject<S>> {
  const cleaned: RawParams = {};
  for (const k of Object.keys(schema.shape)) {
    const v = Object.hasOwn(raw, k) ? blankToUndef(raw[k]) : undefined;
    if (v !== undefined) cleaned[k] = v;
  }
  const r = schema.safeParse(cleaned);
  if (!r.success) {
    const what = r.error.issues.map((i) => `${i.path.join('.') || 'parameters'}: ${i.message}`).join('; ');
    throw new ApiError(RC.INVALID_ARGUMENTS, `invalid parameter ${what}`);
  }
  return r.data;
}
