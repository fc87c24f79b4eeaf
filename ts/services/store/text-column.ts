// ⑧ A string column of a Batch held as UTF-8 bytes: row r is
// bytes[start[r] .. start[r] + len[r]). The flow writer decodes INFO, the
// labels, IPv6 addresses and Community IDs into one growing byte arena per
// column rather than a JS string per row (no allocation, no garbage per
// flow), and the backends write those bytes as they are: DuckDB hands each
// chunk's strings over in one call (duckdb.ts), ClickHouse copies them into
// RowBinary (clickhouse.ts). Rows may share bytes (a constant column points
// every row at the same ones).

const utf8 = new TextDecoder('utf-8');
const enc = new TextEncoder();

export class TextColumn {
  /** the arena; rows point into it (replaced by a larger one when full) */
  bytes: Uint8Array;
  readonly start: Uint32Array;
  readonly len: Uint32Array;
  /** arena bytes in use */
  end = 0;

  constructor(
    readonly capacity: number,
    /** initial arena size per row (it grows as needed) */
    bytesPerRow = 16,
  ) {
    this.bytes = new Uint8Array(Math.max(64, capacity * bytesPerRow));
    this.start = new Uint32Array(capacity);
    this.len = new Uint32Array(capacity);
  }

  /** Every row `value` (one copy of its bytes). */
  static constant(capacity: number, value: string): TextColumn {
    const c = new TextColumn(capacity, 0);
    c.set(0, value);
    c.start.fill(0);
    c.len.fill(c.len[0]);
    return c;
  }

  /** The column a structured clone of one carries (batch-wire.ts). */
  static from(o: { bytes: Uint8Array; start: Uint32Array; len: Uint32Array; end: number; capacity: number }): TextColumn {
    const c = Object.create(TextColumn.prototype) as TextColumn;
    return Object.assign(c, { bytes: o.bytes, start: o.start, len: o.len, end: o.end, capacity: o.capacity });
  }

  /** Empties the arena (rows are rewritten before they are read again). */
  reset(): void {
    this.end = 0;
  }

  /** Makes room for `n` more bytes; the offset to write them at (this.bytes may be a new array). */
  room(n: number): number {
    if (this.end + n > this.bytes.length) {
      const b = new Uint8Array(Math.max(2 * this.bytes.length, this.end + n));
      b.set(this.bytes.subarray(0, this.end));
      this.bytes = b;
    }
    return this.end;
  }

  /** Row r is the `n` bytes just written at room()'s offset. */
  commit(r: number, n: number): void {
    this.start[r] = this.end;
    this.len[r] = n;
    this.end += n;
  }

  /** Row r := s (its UTF-8 bytes). */
  set(r: number, s: string): void {
    const l = s.length;
    const o = this.room(3 * l);
    const b = this.bytes;
    let ascii = true;
    for (let k = 0; k < l; k++) {
      const ch = s.charCodeAt(k);
      if (ch > 0x7f) {
        ascii = false;
        break;
      }
      b[o + k] = ch;
    }
    if (ascii) return this.commit(r, l);
    this.commit(r, enc.encodeInto(s, b.subarray(o)).written);
  }

  /** Row r as a string. */
  get(r: number): string {
    const s = this.start[r], l = this.len[r];
    const b = this.bytes;
    for (let i = s; i < s + l; i++) if (b[i] > 0x7f) return utf8.decode(b.subarray(s, s + l));
    return l ? String.fromCharCode.apply(null, b.subarray(s, s + l) as unknown as number[]) : '';
  }

  /** Rows [0, rows) as strings, for a reader that needs plain values. */
  strings(rows: number): string[] {
    const out = new Array<string>(rows);
    for (let r = 0; r < rows; r++) out[r] = this.get(r);
    return out;
  }
}
