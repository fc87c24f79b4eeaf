// ⑧ PCAP extraction: what an interface recorded (native/src/recorder), or
// for a replayed interface without a recording its capture file itself,
// cut to a time window and a BPF filter and streamed as a pcap file. Each
// extraction reads a slice per pull on a libuv thread (never the event
// loop), at most MAX_EXTRACTIONS at once, each ended after its time limit
// or as soon as its client goes away.
import { openExtraction, type NativeExtraction, type NativeExtractionOptions, type RecorderStats } from '../../bindings/engine.js';

type NativeExtractionSource = Pick<NativeExtractionOptions, 'dir' | 'files' | 'loopPeriodNs' | 'passes' | 'firstNs'>;
import { FlowgateError } from '../../bindings/errors.js';
import type { MonitoredInterface } from '../interfaces.js';

/** ntopng allows 2 (CONST_MAX_NUM_LIVE_EXTRACTIONS); the slices here leave the thread pool between pulls */
export const MAX_EXTRACTIONS = 4;
export const EXTRACTION_TIMEOUT_MS = 10 * 60_000;
/** output per pull */
const CHUNK_BYTES = 1 << 20;

/**
 * What an interface's extraction reads: its recording, else its capture
 * file (a looped replay's passes mapped onto it: each pass's packets are
 * the file's, shifted as the engine shifted them); null: nothing kept.
 */
export function extractionSource(i: MonitoredInterface): NativeExtractionSource | null {
  if (i.recordDir) return { dir: i.recordDir };
  if (!i.isFile) return null;
  const r = i.engine.replayInfo();
  return { files: [i.ifname], loopPeriodNs: r.periodNs, passes: r.passes, firstNs: r.firstNs };
}

/** The recorder's figures as interface data shows them (flowgate's own field: ntopng's n2disk status lives elsewhere). */
export function recordingStatus(s: RecorderStats | null, running: number) {
  return {
    enabled: s !== null,
    packets: s?.packets ?? 0,
    bytes: s?.bytes ?? 0,
    drops: s?.drops ?? 0,
    write_errors: s?.writeErrors ?? 0,
    files: s?.files ?? 0,
    files_deleted: s?.filesDeleted ?? 0,
    disk_bytes: s?.diskBytes ?? 0,
    extractions_running: running,
  };
}

export interface ExtractionRequest {
  /** epoch seconds: packets of the seconds begin … end, both included */
  begin: number;
  end: number;
  filter: string;
}

export class Extractions {
  running = 0;
  /** extractions ended by their time limit, by a client that went away */
  timedOut = 0;
  cancelled = 0;

  constructor(private readonly opts: { max?: number; timeoutMs?: number } = {}) {}

  /**
   * A pcap file as a stream. Throws FlowgateError: E_BPF (libpcap's message)
   * for a filter that does not compile, E_BUSY when MAX_EXTRACTIONS run,
   * E_NOT_RECORDED when the interface keeps no packets.
   */
  open(i: MonitoredInterface, r: ExtractionRequest): ReadableStream<Uint8Array> {
    const src = extractionSource(i);
    if (!src) throw new FlowgateError(`interface ${i.ifname} keeps no packets: start flowgate with --record`, 'E_NOT_RECORDED');
    const max = this.opts.max ?? MAX_EXTRACTIONS;
    if (this.running >= max) throw new FlowgateError(`${this.running} extractions are running (at most ${max}): try again when one ends`, 'E_BUSY');
    const x: NativeExtraction = openExtraction({ ...src, beginNs: r.begin * 1e9, endNs: (r.end + 1) * 1e9, filter: r.filter });
    this.running++;
    let open = true;
    const finish = () => {
      if (!open) return;
      open = false;
      clearTimeout(timer);
      x.close();
      this.running--;
    };
    let ctrlRef: ReadableStreamDefaultController<Uint8Array> | null = null;
    // A transfer cut short (the client sees no end of the chunked body), never a silently short file.
    const timer = setTimeout(() => {
      this.timedOut++;
      finish();
      ctrlRef?.error(new Error('extraction time limit reached'));
    }, this.opts.timeoutMs ?? EXTRACTION_TIMEOUT_MS);
    timer.unref();
    return new ReadableStream<Uint8Array>(
      {
        start: (ctrl) => {
          ctrlRef = ctrl;
        },
        pull: async (ctrl) => {
          if (!open) return;
          try {
            const out = await x.read(CHUNK_BYTES);
            if (!open) return;
            if (out.data.length) ctrl.enqueue(new Uint8Array(out.data.buffer, out.data.byteOffset, out.data.length));
            if (out.done) {
              finish();
              ctrl.close();
            }
          } catch (e) {
            finish();
            ctrl.error(e);
          }
        },
        cancel: () => {
          if (open) this.cancelled++;
          finish();
        },
      },
      { highWaterMark: 0 },
    );
  }
}
