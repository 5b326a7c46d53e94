#pragma once

#include "core/plan/estimate.h"

#include <nlohmann/json_fwd.hpp>

namespace hetplan {

class Topology;

// Internal to core/io (the reports of report_json.h build on it).
// The JSON form of an Evaluation, as plan files ("estimate") and `hetplan-cli --json` print
// it: iteration_s, mfu, tokens_per_s, breakdown_s, memory (GPUs by name), valid, errors, and
// the optional cost and per-pipeline figures, and for inference the serving simulation
// ("serving": request_rate, slo_s, reference_latency_s, attainment, p50_s, p99_s,
// target_attainment, max_rate; rates in requests per second) and the prediction interval
// ("interval": confidence, iteration_s, breakdown_s and replica_latency_s as {"lo", "hi"}
// seconds, extrapolates: gpu_types and link_kinds measured by nothing).
nlohmann::json evaluationToJson(const Evaluation &evaluation, const Topology &topology);

} // namespace hetplan
