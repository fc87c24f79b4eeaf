// ⑧ A Batch between threads: typed arrays and byte columns travel by
// transfer (moved, not copied), plain arrays by structured clone. The sender's
// arrays are gone once sent (detached), except those shared between batches
// (constant columns), which are copied.
import type { Batch, Column } from './backend.js';
import { TextColumn } from './text-column.js';

/** A TextColumn as structured clone sees it (the class is lost on the way) */
interface WireText {
  text: true;
  bytes: Uint8Array;
  start: Uint32Array;
  len: Uint32Array;
  end: number;
  capacity: number;
}
export interface WireBatch {
  rows: number;
  columns: (Column | WireText)[];
}

/** What to send and which buffers move (all but Batch.shared's, which are copied). */
export function packBatch(b: Batch): { wire: WireBatch; transfer: ArrayBuffer[] } {
  const shared = b.shared ?? new Set();
  const move = new Set<ArrayBuffer>();
  const columns = b.columns.map((c): Column | WireText => {
    if (c instanceof TextColumn) {
      if (!shared.has(c)) for (const a of [c.bytes, c.start, c.len]) move.add(a.buffer as ArrayBuffer);
      return { text: true, bytes: c.bytes, start: c.start, len: c.len, end: c.end, capacity: c.capacity };
    }
    if (ArrayBuffer.isView(c) && !shared.has(c)) move.add(c.buffer as ArrayBuffer);
    return c;
  });
  return { wire: { rows: b.rows, columns }, transfer: [...move] };
}

/** The batch a WireBatch stands for. */
export function unpackBatch(w: WireBatch): Batch {
  return { rows: w.rows, columns: w.columns.map((c) => (c && typeof c === 'object' && 'text' in c && c.text === true ? TextColumn.from(c) : (c as Column))) };
}
