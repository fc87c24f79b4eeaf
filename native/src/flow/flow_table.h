// ③ The flow table, and TCP sequence analysis.
#pragma once
#include "flow/flow.h"
#include "flow/table.h"

namespace fg {

using FlowTable = Table<Flow, FlowKey>;

// TCP retransmission / out-of-order / lost accounting for one direction,
// following ntopng's Flow::updateTcpSeqNum so figures compare with it.
void tcp_seq_update(Flow& f, int dir, uint32_t seq, uint8_t flags, uint32_t payload_len,
                    uint32_t& retr, uint32_t& ooo, uint32_t& lost, uint32_t& keepalive);

}  // namespace fg
