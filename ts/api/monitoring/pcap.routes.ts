// Route declarations of the PCAP family: live extraction (v0, v1, v2) and
// the pro BPF filter of a historical query's tags.
import { int, str } from '../params.js';
import { RC } from '../rc.js';
import { route, type RouteDef } from '../route.js';
import { BPF_TAGS, dbFilterBpf, liveExtraction } from './pcap.js';

const epoch = () => int(0, 2 ** 32);

export const pcapRoutes: RouteDef[] = [
  route({
    path: 'get/pcap/live_extraction', versions: ['v0', 'v1', 'v2'], method: 'GET', perm: 'user', ifid: true,
    summary:
      'The packets the interface recorded (--record; a replayed interface: its capture file) in the seconds epoch_begin … epoch_end that pass bpf_filter, streamed as a pcap file (application/vnd.tcpdump.pcap, microsecond timestamps). -3: the user may not download packets, or the interface keeps none; -5: a bad window; -7: a filter libpcap does not compile (its message); -6: every extraction slot is busy. An unprivileged user gets only the packets of their allowed networks.',
    params: { epoch_begin: epoch(), epoch_end: epoch(), bpf_filter: str(4096).optional() },
    errors: [RC.NOT_FOUND, RC.INVALID_INTERFACE, RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR, RC.BAD_FORMAT],
    handler: (ctx, p) => liveExtraction(ctx, p),
  }),
  route({
    path: 'get/db/filter/bpf', versions: ['v2'], pro: true, method: 'GET', perm: 'user', ifid: true,
    summary:
      "The BPF filter equivalent to a historical query's tags (tag_utils.build_bpf): rsp.bpf, and rsp.unsupported, the tags given that packets cannot be filtered on (application, country, score …) and so are left out, as ntopng leaves them out",
    params: { epoch_begin: epoch().optional(), epoch_end: epoch().optional(), ...Object.fromEntries(BPF_TAGS.map((t) => [t, str(1024).optional()])) },
    errors: [RC.NOT_FOUND, RC.INVALID_INTERFACE, RC.NOT_GRANTED, RC.INVALID_ARGUMENTS, RC.INTERNAL_ERROR, RC.BAD_FORMAT],
    handler: (ctx, p) => dbFilterBpf(ctx, p as Record<string, string | undefined>),
  }),
];
