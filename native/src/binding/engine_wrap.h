// ⑥ The JS face of one Engine. Owns it; close(), the destructor and the env
// cleanup hook all end in Engine::stop(). While running, the wrap holds a
// strong reference to itself so garbage collection never stops a capture.
#pragma once
#include <napi.h>

#include <memory>
#include <set>

#include "binding/convert.h"
#include "engine/engine.h"

namespace fg {

struct AddonData {
  Napi::FunctionReference engine_ctor;
  Napi::FunctionReference error_class;  // FlowgateError, set by ts/bindings at load
  std::set<class EngineWrap*> live;
};

class EngineWrap : public Napi::ObjectWrap<EngineWrap> {
 public:
  static Napi::Function Init(Napi::Env env);
  explicit EngineWrap(const Napi::CallbackInfo& info);
  ~EngineWrap() override;
  void shutdown();

 private:
  MemoryFigures memory_;  // the stats' memory figures, sampled at most once a second
  Napi::Value Start(const Napi::CallbackInfo& info);
  Napi::Value Stop(const Napi::CallbackInfo& info);
  Napi::Value State(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value Hosts(const Napi::CallbackInfo& info);
  Napi::Value Host(const Napi::CallbackInfo& info);
  Napi::Value HostCheckHits(const Napi::CallbackInfo& info);
  Napi::Value HostScoresAbove(const Napi::CallbackInfo& info);
  Napi::Value SetRiskScores(const Napi::CallbackInfo& info);
  Napi::Value SetHostPools(const Napi::CallbackInfo& info);
  Napi::Value SetIecConfig(const Napi::CallbackInfo& info);
  Napi::Value Flows(const Napi::CallbackInfo& info);
  Napi::Value FlowCounters(const Napi::CallbackInfo& info);
  Napi::Value L7Stats(const Napi::CallbackInfo& info);
  Napi::Value SetLocalNetworks(const Napi::CallbackInfo& info);
  Napi::Value SetLimits(const Napi::CallbackInfo& info);
  Napi::Value DrainExpired(const Napi::CallbackInfo& info);
  Napi::Value ExpireActive(const Napi::CallbackInfo& info);
  Napi::Value SetEgressPolicies(const Napi::CallbackInfo& info);
  Napi::Value EgressStats(const Napi::CallbackInfo& info);
  Napi::Value SetTickListener(const Napi::CallbackInfo& info);
  Napi::Value TickDone(const Napi::CallbackInfo& info);
  Napi::Value TrafficBy(const Napi::CallbackInfo& info);
  Napi::Value NetworkCheckHits(const Napi::CallbackInfo& info);
  Napi::Value BcastTooLargeEvents(const Napi::CallbackInfo& info);
  Napi::Value LocalMacs(const Napi::CallbackInfo& info);
  Napi::Value GatewayHosts(const Napi::CallbackInfo& info);
  Napi::Value BehaviourMapPage(const Napi::CallbackInfo& info);
  Napi::Value NoTxPeers(const Napi::CallbackInfo& info);
  Napi::Value TopSitesList(const Napi::CallbackInfo& info);
  Napi::Value RecorderStatsJs(const Napi::CallbackInfo& info);
  Napi::Value ReplayInfo(const Napi::CallbackInfo& info);
  Napi::Value WorkerPackets(const Napi::CallbackInfo& info);

  std::unique_ptr<Engine> engine_;
  Napi::ThreadSafeFunction tsfn_;
  bool referenced_ = false;
  AddonData* data_ = nullptr;
};

// Throws FlowgateError(message, code) when the class was registered.
[[noreturn]] void throw_fg(Napi::Env env, const std::string& msg, const char* code);

}  // namespace fg
