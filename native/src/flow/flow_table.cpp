#include "flow/flow_table.h"

namespace fg {

// ntopng compares each segment with the sequence number it expected next:
// equal (or one more, a FIN/keep-alive edge) is in order; one less with 0/1
// payload and no SYN/FIN/RST is a keep-alive; the same number as the previous
// segment is a retransmission; below both the previous and the expected one
// it counts as lost; anything else is out of order.
void tcp_seq_update(Flow& f, int dir, uint32_t seq, uint8_t flags, uint32_t payload_len,
                    uint32_t& retr, uint32_t& ooo, uint32_t& lost, uint32_t& keepalive) {
  uint32_t next_seq = seq + payload_len + ((flags & (kSyn | kFin)) ? 1 : 0);
  bool update_last = true;
  uint32_t& next = f.tcp_next[dir];
  uint32_t& last = f.tcp_last[dir];
  if (next > 0 && next != seq && next != seq - 1) {
    if (seq == next - 1 && payload_len <= 1 && (flags & (kSyn | kFin | kRst)) == 0) {
      keepalive++;
    } else if (last == seq) {
      f.retr[dir]++, retr++;
    } else if (last > seq && seq < next) {
      f.lost[dir]++, lost++;
    } else {
      f.ooo[dir]++, ooo++;
      update_last = (seq - 1) > last;
    }
  }
  next = next_seq;
  if (update_last) last = seq;
}

}  // namespace fg
