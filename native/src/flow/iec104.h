// ③ IEC 60870-5-104 per-flow state, for ntopng's three IEC flow checks
// (IEC104Stats::processPacket): every TCP segment of a flow classified
// IEC60870 is walked APDU by APDU; I-format APDUs feed the type-id
// transitions, the monitor/command transition counts and the allowed
// type-id test. What they find is kept as the record's tcp_state bits
// (engine/records.h kTcpIec*): a bit once set stays set.
//
// Where this differs from ntopng, on purpose:
// - a retransmitted I-APDU is one repeating the (N(S), N(R)) of the last
//   I-APDU of its own direction. ntopng compares the pair against counters
//   it shifts for the reverse direction (and increments after comparing),
//   which takes the first I-APDU of a connection (0, 0), every client frame
//   answering a server frame, and every other frame of a server's stream
//   for retransmissions;
// - segments TCP calls retransmitted (no byte past the next one expected)
//   are not walked again (the Pipeline's test);
// - the ASDU's cause of transmission and common address are read where
//   IEC 60870-5-101 §7.2 puts them (octets 3 and 5-6 of the ASDU), and an
//   I-APDU shorter than its 6-octet data unit identifier, an S/U-APDU whose
//   length is not 4, a length over 253 or an APDU not opening with 0x68
//   stops the walk of that segment (ntopng skips the start octet unchecked
//   after S and U frames and reads type ids from 2-octet ASDUs).
#pragma once
#include <cstddef>
#include <cstdint>

namespace fg {

// IEC 60870-5-104 §5: the APCI's start octet and its length field's limits
constexpr uint8_t kIecStart = 0x68;
constexpr uint8_t kIecMinLen = 4, kIecMaxLen = 253;
// the I-format ASDU's data unit identifier: type id, variable structure
// qualifier, cause of transmission (2 octets), common address (2 octets)
constexpr uint8_t kIecDuiLen = 6;

enum class IecFormat : uint8_t { I = 0, S = 1, U = 3 };

// What a flow raised (IecFlow::alerts); the record carries them shifted
// into tcp_state (engine/records.h kTcpIec*)
enum : uint8_t { kIecUnexpectedTypeId = 1, kIecInvalidTransition = 2, kIecInvalidCommandTransition = 4 };

struct IecApdu {
  IecFormat format;
  uint8_t u_func;       // U: control octet 1 >> 2 (STARTDT act 0x01, con 0x02, STOPDT 0x04/0x08, TESTFR 0x10/0x20)
  uint16_t ns, nr;      // I: send and receive sequence numbers; S: receive (15 bits each)
  uint8_t type_id;      // I: the ASDU's type identification
  uint8_t cot;          // I: cause of transmission (its low 6 bits)
  bool negative;        // I: the P/N bit (0x40) of the cause octet
  uint16_t common_addr; // I: common address of the ASDU (little-endian)
};

// The APDU at p[at..n): a whole, well-formed one is decoded into `out` and
// `at` moves past it; otherwise false and `at` is left alone (the walk of
// the segment stops there). Never reads outside p[0..n).
bool iec104_next(const uint8_t* p, size_t n, size_t& at, IecApdu& out) noexcept;

// ntopng's classes of type ids (IEC104Stats::isMonitoringTypeId / isCommandTypeId)
inline bool iec_monitoring(uint8_t t) { return t <= 40 || t == 70; }
inline bool iec_command(uint8_t t) { return (t >= 45 && t <= 64) || (t >= 100 && t <= 107); }

// What the engine is told (Pipeline::set_iec_allowed): the allowed type ids
// below 128 as a bitmap (ntopng's iec104_allowed_typeids; ids from 128 up
// are never checked), all of them while the check is off; and the learning
// period (ntopng's iec60870_learning_period, CONST_IEC104_LEARNING_TIME).
struct IecConfig {
  uint64_t allowed[2] = {~uint64_t(0), ~uint64_t(0)};
  uint32_t learning_s = 21600;
};

// One IEC flow's state: a side pool entry (Pipeline), taken at its first
// walked segment. The transitions seen (previous type id << 8 | type id)
// are a fixed open-addressed set: 128 pairs cover the type ids a station
// actually mixes; a flow that learns more stops being judged for new
// transitions (`overflow`), as an unkept pair would later look new.
struct IecFlow {
  static constexpr uint32_t kPairs = 128;
  uint32_t slot;                // the flow slot it belongs to (the pipeline's index key)
  uint64_t used[kPairs / 64];   // occupancy of pairs[]
  uint16_t pairs[kPairs];
  uint16_t last_ns[2], last_nr[2];  // per flow direction: the last I-APDU's sequence numbers
  uint16_t norm_tx, norm_rx;        // ntopng's tx_seq_num / rx_seq_num (its INFO shows them)
  uint16_t info_nr;                 // the last S-APDU's N(R) (INFO)
  uint8_t seen;                     // bit d: direction d sent an I-APDU
  uint8_t last_type;                // type id of the last I-APDU (either direction)
  uint8_t m_to_c, c_to_m, c_to_c;   // transitions monitor→command, command→monitor, command→command (saturating)
  uint8_t alerts;                   // kIec* bits
  uint8_t overflow;                 // a transition could not be kept
  // the last APDU for ntopng's INFO: 0 none, else 1 + IecFormat; from port 2404 ("->") or not ("<-")
  uint8_t info_kind, info_out, info_u;
};

// One TCP segment's payload of an IEC flow: `dir` 0 client → server, 1
// back; `from_2404` the segment's source port is 2404 (ntopng's
// tx_direction); `duration_s` ntopng's Flow::get_duration (1 + last - first
// seen, whole seconds).
void iec104_segment(IecFlow& s, const IecConfig& cfg, const uint8_t* p, size_t n, int dir, bool from_2404, uint64_t duration_s) noexcept;

// ntopng's IEC104Stats infobuf: "-> I, RX 3, TX 5", "<- S, RX 7", "-> U (TESTFR con)"; "" before any APDU.
void iec104_info(const IecFlow& s, char* out, size_t cap) noexcept;

}  // namespace fg
