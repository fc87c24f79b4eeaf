// Large list answers (every host, a 100 k-flow page, custom data of every
// host) written a slice at a time: the rows come from an engine Cursor (the
// page ordered once; rows copied and converted per slice, those gone since
// left out) and each slice is serialized in a later turn of the event loop,
// so other clients are answered between slices instead of waiting seconds
// behind one answer of tens of MB.
import type { Context } from 'hono';

import type { Cursor } from '../bindings/engine.js';
import { envelope } from './rc.js';
import type { Version } from './route.js';

/** Lists up to this many rows are built at once; larger ones are streamed. */
export const STREAM_ROWS = 1000;

/** A handler's answer whose list is written slice by slice. */
export class RowStream {
  constructor(
    /** the answer around the list (null: the answer is the list) */
    readonly head: Record<string, unknown> | null,
    /** the field of `head` that holds the list */
    readonly field: string,
    /** the next rows as they go on the wire; [] when done */
    readonly next: (n: number) => unknown[],
    /** frees what the rows come from (also when the client goes away) */
    readonly close: () => void,
  ) {}

  /** The rows of a cursor, each mapped. */
  static of<T>(head: Record<string, unknown> | null, field: string, cur: Cursor<T>, map: (row: T) => unknown): RowStream {
    return new RowStream(head, field, (n) => cur.next(n).map(map), () => cur.close());
  }
}

/** Work per turn of the event loop: a slice is rows taken 32 at a time until this many ms went by. */
const SLICE_MS = 2;

const MARK = '\u0000flowgate-rows\u0000';
/** A later turn of the event loop: other clients are answered in between. */
export const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The streamed answer: the same JSON as the whole answer (v0 bare, v1/v2 in the envelope). */
export function streamAnswer(c: Context, version: Version, rs: RowStream): Response {
  const inner = rs.head ? { ...rs.head, [rs.field]: MARK } : MARK;
  const text = JSON.stringify(version === 'v0' ? inner : envelope(0, inner));
  const mark = JSON.stringify(MARK);
  const at = text.indexOf(mark);
  const prefix = `${text.slice(0, at)}[`, suffix = `]${text.slice(at + mark.length)}`;
  const enc = new TextEncoder();
  let first = true;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(ctrl) {
        await nextTurn();
        const parts: string[] = [];
        let done = false;
        try {
          const t0 = performance.now();
          do {
            const rows = rs.next(32);
            if (!rows.length) done = true;
            else parts.push(JSON.stringify(rows).slice(1, -1));
          } while (!done && performance.now() - t0 < SLICE_MS);
        } catch (e) {
          rs.close();
          ctrl.error(e);
          return;
        }
        let text = parts.join(',');
        if (first) text = prefix + text;
        else if (text) text = `,${text}`;
        first = false;
        if (done) text += suffix;
        if (text) ctrl.enqueue(enc.encode(text));
        if (done) {
          rs.close();
          ctrl.close();
        }
      },
      cancel() {
        rs.close();
      },
    },
    { highWaterMark: 0 },
  );
  return c.body(body, 200, { 'content-type': 'application/json; charset=UTF-8' });
}
