// ③ Address → country for the engine (ntopng's Host::getCountry, looked up
// once when a host is created): the country of every network of the
// operator's MaxMind-format city databases (the files the API's
// geolocation reads), flattened once at start into longest-prefix ranges.
// One process-wide table, like the databases; nothing per packet.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "decode/packet.h"
#include "dpi/prefix_table.h"

namespace fg {

// A country as the engine keeps it: 1 + (first letter − 'A') × 26 + (second − 'A'); 0: none.
constexpr uint16_t kCountrySlots = 26 * 26 + 1;
inline uint16_t country_code(char a, char b) {
  if (a < 'A' || a > 'Z' || b < 'A' || b > 'Z') return 0;
  return uint16_t(1 + (a - 'A') * 26 + (b - 'A'));
}
inline void country_letters(uint16_t c, char out[3]) {
  out[0] = c ? char('A' + (c - 1) / 26) : 0, out[1] = c ? char('A' + (c - 1) % 26) : 0, out[2] = 0;
}

struct CountryTable {
  PrefixTable ranges;
  size_t networks = 0;  // database networks read
  uint16_t find(const IpAddr& ip) const { return ranges.find(ip); }
};

// Reads the databases (IPv4, IPv6 or both per file); false with `err` when
// one cannot be read or is no MaxMind database.
bool load_country_table(const std::vector<std::string>& files, std::shared_ptr<CountryTable>& out, std::string& err);
// The table in force on this thread (nullptr: none loaded), as user_rules().
const CountryTable* country_table();
void set_country_table(std::shared_ptr<const CountryTable> t);

}  // namespace fg
