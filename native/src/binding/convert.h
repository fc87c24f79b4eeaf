// ⑥ C++ snapshot rows → JS objects. Field names are the wire names the REST
// layer serves (ntopng's), declared once here and typed in ts/bindings/native.ts.
#pragma once
#include <napi.h>

#include "engine/engine.h"
#include "engine/query.h"

namespace fg {

Napi::Object host_to_js(Napi::Env env, const HostRow& r);
Napi::Object flow_to_js(Napi::Env env, const FlowRow& r);
// A host of query_host_checks: ip, vlan, local, name, hits of the checks asked for (threshold >= 0).
Napi::Object host_score_row_to_js(Napi::Env env, const HostScoreRow& r);
Napi::Object host_check_row_to_js(Napi::Env env, const HostCheckRow& r, const double (&thresholds)[kHostCheckCount]);
// Interface statistics into a Float64Array of stats_size() slots (layout: stats_layout()).
size_t stats_size();
void stats_fill(const Engine& e, const Views& v, double* out);
// The memory figures, outside the batch lock (Engine::tables_views): asking
// the kernel which pages are resident takes a millisecond on large tables,
// so they are sampled at most once a second (and after a table rebuild).
struct MemoryFigures {
  double all = 0, flows = 0, flows_reserved = 0, hosts = 0, hosts_reserved = 0;
  uint64_t at_ns = 0;
  bool valid = false;
};
void stats_fill_memory(const Views& v, double* out, MemoryFigures& cache);
Napi::Object stats_layout(Napi::Env env);
// Interface counters by application and category: every shard's, summed.
Napi::Object l7_stats_to_js(Napi::Env env, const Views& v);
Napi::Object expired_layout(Napi::Env env);
Napi::Object dpi_registry(Napi::Env env);
const char* tunnel_name(uint8_t t);
// setUserRules on the addon (user_rules_wrap.cpp)
void register_user_rules(Napi::Env env, Napi::Object exports);
// loadCountries on the addon (country_wrap.cpp)
void register_countries(Napi::Env env, Napi::Object exports);
// NativeExtraction on the addon (extraction_wrap.cpp)
void register_extraction(Napi::Env env, Napi::Object exports);
void register_edge(Napi::Env env, Napi::Object exports);

}  // namespace fg
