#!/usr/bin/env bash
# Builds the seed corpora of the two fuzz targets from the shared nDPI captures.
#
#   native/fuzz/make-corpus.sh [OUT_DIR] [PCAP_DIR]
#
# OUT_DIR (default /tmp/fg-corpus) gets:
#   decode/  one file per frame: a link-type selector byte (fuzz_decode.cpp's
#            kLinks index) followed by the captured frame (and some inputs of
#            up to 12 length-prefixed frames, selector bit 5); frames come from
#            captures of every link type the decoder handles (Ethernet, VLAN,
#            PPPoE, GRE, CAPWAP, GTP-U, 6in4, fragments, SLL, BSD null, raw IP,
#            Cisco HDLC) plus a few synthesized encapsulations no capture has
#            (QinQ, MPLS, VXLAN, SLL2, DLT_LOOP, IPv6 extension headers).
#   file/    small whole captures (pcap and pcapng, <= 8 KiB) for fuzz_file,
#            plus a few synthesized variants (big-endian pcap, ns pcap, the
#            Kuznetzov format, pcapng with two interfaces and an SPB).
# Corpora are written outside the repository: do not commit them.
set -euo pipefail
OUT=${1:-/tmp/fg-corpus}
PCAPS=${2:-$(cd "$(dirname "$0")/../../.." && pwd)/shared/pcaps/ndpi}
mkdir -p "$OUT/decode" "$OUT/file"

python3 - "$OUT" "$PCAPS" <<'PY'
import hashlib, os, struct, sys

out, pcaps = sys.argv[1], sys.argv[2]

# fuzz_decode.cpp kLinks: LINKTYPE -> selector byte
SEL = {1: 0, 101: 1, 113: 2, 276: 3, 0: 4, 108: 5, 104: 6, 228: 7, 229: 8, 12: 9, 14: 10}

def records(data):
    """Yields (linktype, frame) for every packet of a pcap or pcapng file."""
    magic = struct.unpack('<I', data[:4])[0]
    if magic == 0x0a0d0d0a:
        pos, e, ifs = 0, '<', []
        while pos + 12 <= len(data):
            if data[pos:pos + 4] == b'\x0a\x0d\x0d\x0a':
                e = '<' if data[pos + 8:pos + 12] == b'\x4d\x3c\x2b\x1a' else '>'
                ifs = []
            t, blen = struct.unpack(e + 'II', data[pos:pos + 8])
            if blen < 12 or pos + blen > len(data):
                return
            b = data[pos:pos + blen]
            if t == 1:
                ifs.append(struct.unpack(e + 'H', b[8:10])[0])
            elif t == 6 and blen >= 32:
                iid, _, _, cl, _ = struct.unpack(e + 'IIIII', b[8:28])
                if iid < len(ifs):
                    yield ifs[iid], b[28:28 + cl]
            elif t == 3 and ifs and blen >= 16:
                wl = struct.unpack(e + 'I', b[8:12])[0]
                yield ifs[0], b[12:12 + min(wl, blen - 16)]
            pos += blen
        return
    if magic in (0xa1b2c3d4, 0xa1b23c4d, 0xa1b2cd34):
        e = '<'
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1, 0x34cdb2a1):
        e = '>'
    else:
        return
    kuz = magic in (0xa1b2cd34, 0x34cdb2a1)
    lt = struct.unpack(e + 'I', data[20:24])[0] & 0xffff
    pos, rec = 24, 24 if kuz else 16
    while pos + rec <= len(data):
        _, _, cl, _ = struct.unpack(e + 'IIII', data[pos:pos + 16])
        yield lt, data[pos + rec:pos + rec + cl]
        pos += rec + cl

n_decode = 0
seen = set()
def add_frame(lt, frame):
    global n_decode
    if lt not in SEL:
        return
    blob = bytes([SEL[lt]]) + frame
    h = hashlib.sha1(blob).hexdigest()
    if h in seen:
        return
    seen.add(h)
    with open(os.path.join(out, 'decode', h), 'wb') as f:
        f.write(blob)
    n_decode += 1

# Captures chosen for the layers they carry; up to PER_FILE distinct frames each,
# taking the first frames and then every k-th one so whole conversations are sampled.
PICKS = [
    # Ethernet + IPv4/IPv6, TCP/UDP/ICMP, DPI-relevant payloads (DNS, DHCP, TLS, HTTP, NetBIOS)
    'http_ipv6.pcap', 'dns_long_domainname.pcap', 'bad-dns-traffic.pcap', 'dhcp-fuzz.pcapng',
    'netbios_wildcard_dns_query.pcap', 'tls_with_huge_ch.pcapng', 'http-lines-split.pcap',
    'malformed_icmp.pcap', 'tcp_scan.pcapng', 'synscan.pcap', 'quic_q43.pcap', 'smbv1.pcap',
    # VLAN, PPPoE, GRE/ERSPAN, CAPWAP, GTP-U, 6in4 / 4in6, fragments
    'hsrp0.pcap', 'vrrp3.pcapng', 'gre.pcapng', 'pptp.pcap', 'syslog.pcap', 'capwap.pcap',
    'ja3_lots_of_cipher_suites_2_anon.pcap', 'reasm_segv_anon.pcapng', '6in4tunnel.pcap',
    '4in6tunnel.pcap', 'ip_fragmented_garbage.pcap', 'fuzz-2006-09-29-28586.pcap', 'esp.pcapng',
    # Linux cooked (SLL), BSD null, raw IP (101 and 228), Cisco HDLC
    'KakaoTalk_chat.pcap', 'dns2tcp_tunnel.pcap', 'http2.pcapng',
    'nats.pcap', 'rdp.pcap', 'fuzz-2021-10-13.pcap', 'openwire.pcapng',
    'bets.pcapng', 'codm.pcap', 'hls.pcapng', 'iqiyi.pcap',
    'kerberos_fuzz.pcapng', 'ossfuzz_seed_fake_traces_1.pcapng', 'quic-fuzz-overflow.pcapng',
    'BGP_redist.pcap',
]
PER_FILE = 40
eth_ipv4 = []   # material for synthesized encapsulations
sll = []
ipv6 = []
for name in PICKS:
    path = os.path.join(pcaps, name)
    if not os.path.exists(path):
        print(f'make-corpus: {name} not found, skipped', file=sys.stderr)
        continue
    recs = list(records(open(path, 'rb').read()))
    step = max(1, len(recs) // PER_FILE)
    picked = recs[:PER_FILE // 2] + recs[PER_FILE // 2::step][:PER_FILE // 2]
    for lt, fr in picked:
        add_frame(lt, fr)
        if lt == 1 and fr[12:14] == b'\x08\x00' and len(eth_ipv4) < 8:
            eth_ipv4.append(fr)
        if lt == 1 and fr[12:14] == b'\x86\xdd' and len(ipv6) < 4:
            ipv6.append(fr[14:])
        if lt == 113 and len(sll) < 4:
            sll.append(fr)

# Multi-frame inputs (selector bit 5: length-prefixed frames in one batch; bit 4:
# the batch fed twice): consecutive frames of a conversation, so flows are
# created and found again within one batch.
n_multi = 0
for name in ['tcp_scan.pcapng', 'http_ipv6.pcap', 'gre.pcapng', 'KakaoTalk_chat.pcap', 'nats.pcap',
             'bets.pcapng', 'ip_fragmented_garbage.pcap', 'capwap.pcap', 'dns_long_domainname.pcap',
             'smbv1.pcap', 'hsrp0.pcap', 'synscan.pcap']:
    path = os.path.join(pcaps, name)
    if not os.path.exists(path):
        continue
    recs = list(records(open(path, 'rb').read()))
    for start in range(0, min(len(recs), 48), 12):
        group = recs[start:start + 12]
        if not group or any(lt != group[0][0] for lt, _ in group) or group[0][0] not in SEL:
            continue
        body = b''.join(struct.pack('>H', len(fr)) + fr for _, fr in group)
        for flag in (0x20, 0x30):
            blob = bytes([SEL[group[0][0]] | flag]) + body
            h = hashlib.sha1(blob).hexdigest()
            if h not in seen and len(blob) <= 16384:
                seen.add(h)
                with open(os.path.join(out, 'decode', h), 'wb') as f:
                    f.write(blob)
                n_decode += 1
                n_multi += 1

# Frames for the name-learning dissectors wherever they occur: DHCP (67/68),
# NetBIOS name service (137), mDNS (5353), DNS over TCP (53): up to 12 per port.
def udp_tcp_ports(fr):
    if fr[12:14] != b'\x08\x00' or len(fr) < 38:
        return None
    ihl = (fr[14] & 15) * 4
    if fr[23] not in (6, 17) or len(fr) < 14 + ihl + 4:
        return None
    return fr[23], struct.unpack('>HH', fr[14 + ihl:14 + ihl + 4])
WANT = {(17, 67): 12, (17, 68): 12, (17, 137): 12, (17, 5353): 12, (6, 53): 12}
for name in sorted(os.listdir(pcaps)):
    if not any(WANT.values()):
        break
    try:
        recs = records(open(os.path.join(pcaps, name), 'rb').read())
        for lt, fr in recs:
            pp = udp_tcp_ports(fr) if lt == 1 else None
            if not pp:
                continue
            for port in pp[1]:
                k = (pp[0], port)
                if WANT.get(k, 0) > 0 and len(fr) <= 2048:
                    WANT[k] -= 1
                    add_frame(lt, fr)
                    break
    except (struct.error, IndexError):
        continue

# Synthesized encapsulations (no capture in the set has them).
def eth(payload, et, src=b'\x02\x00\x00\x00\x00\x01', dst=b'\x02\x00\x00\x00\x00\x02'):
    return dst + src + struct.pack('>H', et) + payload

def ipv4(proto, payload, src=b'\x0a\x00\x00\x01', dst=b'\x0a\x00\x00\x02'):
    hdr = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(payload), 1, 0, 64, proto, 0, src, dst)
    return hdr + payload

def udp(sport, dport, payload):
    return struct.pack('>HHHH', sport, dport, 8 + len(payload), 0) + payload

for fr in eth_ipv4[:4]:
    ip = fr[14:]
    add_frame(1, eth(struct.pack('>HH', 0x0064, 0x8100) + struct.pack('>HH', 0x00c8, 0x0800) + ip, 0x88a8))  # QinQ
    add_frame(1, eth(struct.pack('>I', (100 << 12) | (0 << 9) | 64) + struct.pack('>I', (200 << 12) | (1 << 8) | 64) + ip, 0x8847))  # MPLS x2
    inner = eth(ip, 0x0800, b'\x02\x00\x00\x00\x00\x0a', b'\x02\x00\x00\x00\x00\x0b')
    add_frame(1, eth(ipv4(17, udp(40000, 4789, b'\x08\x00\x00\x00\x00\x00\x2a\x00' + inner)), 0x0800))  # VXLAN
    add_frame(1, eth(ipv4(4, ip), 0x0800))                    # IP-in-IP
    add_frame(108, struct.pack('>I', 2) + ip)                 # DLT_LOOP, AF_INET
    add_frame(0, struct.pack('<I', 2) + ip)                   # DLT_NULL, little endian
    add_frame(0, struct.pack('>I', 2) + ip)                   # DLT_NULL, big-endian writer
    add_frame(12, ip)
    add_frame(14, ip)
    add_frame(229, ip)                                        # wrong family for the link type
for fr in sll:
    # SLL (16 bytes) -> SLL2 (20 bytes): protocol, reserved, ifindex, ARPHRD, pkttype, addrlen, addr
    pkttype, arphrd, alen = struct.unpack('>HHH', fr[:6])
    sll2 = struct.pack('>HHIHBB', struct.unpack('>H', fr[14:16])[0], 0, 2, arphrd, pkttype, alen) + fr[6:14]
    add_frame(276, sll2 + fr[16:])
for ip6 in ipv6[:2]:
    # insert a hop-by-hop and a destination-options header in front of the payload
    nh = ip6[6]
    payload = ip6[40:]
    ext = bytes([60, 0]) + b'\x01\x04\x00\x00\x00\x00' + bytes([nh, 0]) + b'\x01\x04\x00\x00\x00\x00'
    hdr = bytearray(ip6[:40])
    hdr[4:6] = struct.pack('>H', len(ext) + len(payload))
    hdr[6] = 0
    add_frame(229, bytes(hdr) + ext + payload)
    add_frame(1, eth(bytes(hdr) + ext + payload, 0x86dd))

# ---- whole files for fuzz_file
n_file = 0
def add_file(blob, tag):
    global n_file
    with open(os.path.join(out, 'file', tag), 'wb') as f:
        f.write(blob)
    n_file += 1

small = sorted((os.path.getsize(os.path.join(pcaps, n)), n) for n in os.listdir(pcaps))
by_kind = {}
for size, name in small:
    if size > 8192:
        continue
    data = open(os.path.join(pcaps, name), 'rb').read()
    kind = 'ng' if data[:4] == b'\x0a\x0d\x0d\x0a' else 'pcap'
    lts = {lt for lt, _ in records(data)}
    key = (kind, tuple(sorted(lts)))
    if by_kind.get(key, 0) >= 6:
        continue
    by_kind[key] = by_kind.get(key, 0) + 1
    add_file(data, name)

# Synthesized file variants built from a few frames.
frames = [fr for fr in eth_ipv4[:3]]
def pcap(frames, magic=0xa1b2c3d4, endian='<', lt=1, kuz=False):
    out = struct.pack(endian + 'IHHiIII', magic, 2, 4, 0, 0, 65535, lt)
    for i, fr in enumerate(frames):
        out += struct.pack(endian + 'IIII', 1700000000 + i, 500 * i, len(fr), len(fr) + 4)
        if kuz:
            out += struct.pack(endian + 'IHBB', 0, 0, 0, 0)
        out += fr
    return out
def block(t, body):
    pad = (-len(body)) % 4
    n = 12 + len(body) + pad
    return struct.pack('<II', t, n) + body + b'\0' * pad + struct.pack('<I', n)
def pcapng(frames):
    shb = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    idb0 = block(1, struct.pack('<HHI', 1, 0, 65535) + struct.pack('<HHB3x', 9, 1, 9) + struct.pack('<HH', 0, 0))
    idb1 = block(1, struct.pack('<HHI', 101, 0, 65535) + struct.pack('<HHB3x', 9, 1, 0x94) + struct.pack('<HH', 0, 0))
    out = shb + idb0 + idb1
    for i, fr in enumerate(frames):
        ts = (1700000000 + i) * 10**9
        out += block(6, struct.pack('<IIIII', 0, ts >> 32, ts & 0xffffffff, len(fr), len(fr)) + fr)
        ip = fr[14:]
        out += block(6, struct.pack('<IIIII', 1, 0, i, len(ip), len(ip)) + ip)
    out += block(3, struct.pack('<I', len(frames[0])) + frames[0])
    return out
if frames:
    add_file(pcap(frames), 'synth-us-le.pcap')
    add_file(pcap(frames, endian='>'), 'synth-us-be.pcap')
    add_file(pcap(frames, magic=0xa1b23c4d), 'synth-ns.pcap')
    add_file(pcap(frames, magic=0xa1b2cd34, kuz=True), 'synth-kuznetzov.pcap')
    add_file(pcapng(frames), 'synth-two-ifaces.pcapng')
    # raw IP as interface 0, so simple packet blocks (which name no interface) are raw IP
    ip = frames[0][14:]
    shb = block(0x0a0d0d0a, struct.pack('<IHHq', 0x1a2b3c4d, 1, 0, -1))
    idb = block(1, struct.pack('<HHI', 101, 0, 65535))
    add_file(shb + idb + block(3, struct.pack('<I', len(ip)) + ip) + block(3, struct.pack('<I', 20) + ip[:20]),
             'synth-rawip-spb.pcapng')

print(f'make-corpus: {n_decode} inputs ({n_multi} multi-frame) in {out}/decode, {n_file} files in {out}/file')
PY
