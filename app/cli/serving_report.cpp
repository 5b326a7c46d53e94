#include "app/cli/serving_report.h"

#include "app/cli/measured_report.h"
#include "app/cli/report.h"
#include "core/cost/cost_model.h"
#include "core/plan/plan.h"
#include "runtime/model/model_config.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace hetplan::cli {
namespace {

void printRow(std::ostream &out, const std::string &label, const SimulatedBeside &row,
              bool seconds = true)
{
    const auto value = [seconds](double v) {
        if (seconds)
            return formatSeconds(v);
        std::ostringstream text;
        text << std::fixed << std::setprecision(1) << v * 100 << " %";
        return text.str();
    };
    out << std::left << std::setw(24) << label << std::right << std::setw(12)
        << value(row.simulated) << std::setw(12) << value(row.measured) << std::setw(10)
        << relativeErrorText(row.relativeError()) << '\n';
}

} // namespace

Result<Problem> servedProblem(const Problem &planned, const ServingMeasurement &measured,
                              const std::string &source)
{
    const ServingRun &run = measured.run;
    if (!run.model.empty() && run.model != planned.model.name)
        return badInput(source + ": run.model is \"" + run.model + "\" but the plan serves \""
                        + planned.model.name + "\"; give the plan the run was made from");
    Problem asRun = planned;
    InferWorkload &infer = asRun.workload.infer;
    infer.promptLen = run.promptTokens;
    infer.outputLen = run.outputTokens;
    infer.batch = run.batch;
    infer.requestRatePerS = run.requestRatePerS;
    infer.sloS = run.sloS;
    infer.sloScale.reset();
    infer.precision = wirePrecision(run.backend);
    if (run.scale > 1) {
        auto config = runtime::scaledModelConfig(planned.model, run.promptTokens + run.outputTokens,
                                                 run.scale);
        if (!config)
            return badInput(source + ": run.scale: " + config.error().message);
        asRun.model.hidden = config->hidden;
        asRun.model.ffnHidden = config->ffnHidden;
        asRun.model.vocab = config->vocab;
    }
    return asRun;
}

Result<ServingComparison> compareServedRun(const ServingMeasurement &measured,
                                           const std::string &source, const Problem &planned,
                                           const CostModel &costModel, const Plan &plan,
                                           const std::string &planSource)
{
    if (Status samePlan = checkServedPlan(measured, source, plan, planned.topology, planSource);
        !samePlan)
        return samePlan.error();
    auto asRun = servedProblem(planned, measured, source);
    if (!asRun)
        return asRun.error();
    const ServingPhases phases = servingPhases(*asRun, costModel, plan, requestsOf(measured));
    return compareServing(measured, phases);
}

void printServingPhases(std::ostream &out, const ServingPhases &phases)
{
    out << "\nPer replica, the phases of its latency (one prompt's prefill; one decode step "
           "per token):\n";
    const bool batched = phases.batch > 1;
    out << std::left << std::setw(12) << "" << std::right << std::setw(12) << "prefill"
        << std::setw(14) << "1 sequence";
    if (batched)
        out << std::setw(14) << (std::to_string(phases.batch) + " sequences");
    out << '\n';
    for (std::size_t i = 0; i < phases.replicas.size(); ++i) {
        const ReplicaPhases &r = phases.replicas[i];
        out << std::left << std::setw(12) << ("replica " + std::to_string(i)) << std::right;
        if (!r.fits || r.prefillS.empty() || r.decodeSPerToken.empty()) {
            out << std::setw(12) << "-"
                << "  (does not fit in memory)\n";
            continue;
        }
        out << std::setw(12) << formatSeconds(r.prefillS.front().second) << std::setw(14)
            << formatSeconds(r.decodeSPerToken.front());
        if (batched)
            out << std::setw(14) << formatSeconds(r.decodeSPerToken.back());
        out << '\n';
    }
}

void printServingComparison(std::ostream &out, const ServingMeasurement &measured,
                            const ServingComparison &comparison)
{
    const ServingRun &run = measured.run;
    const ServingSummary &summary = measured.summary;
    out << "\nThe serving run (" << backendName(run.backend, BackendSpelling::Measurement)
        << ", scale " << run.scale << ", batch " << run.batch << ", "
        << (run.traceFile.empty() ? "Poisson arrivals, seed " + std::to_string(run.seed)
                                  : "trace " + run.traceFile)
        << "), simulated beside measured for the same requests:\n";
    out << "  " << summary.requests << " requests: " << summary.completed << " completed, "
        << summary.failed << " failed; the first " << summary.warmup
        << " are warm-up, left out of the figures below\n";
    out << std::left << std::setw(24) << "" << std::right << std::setw(12) << "simulated"
        << std::setw(12) << "measured" << std::setw(10) << "error" << '\n';
    for (const ReplicaServingComparison &r : comparison.replicas) {
        const std::string name = "replica " + std::to_string(r.replica);
        printRow(out, name + " prefill", r.prefillS);
        printRow(out, name + " per token", r.tpotS);
        printRow(out, name + " queueing", r.queueS);
    }
    printRow(out, "time to first token p50", comparison.ttftP50S);
    printRow(out, "per output token p50", comparison.tpotP50S);
    printRow(out, "latency p50", comparison.latencyP50S);
    printRow(out, "latency p90", comparison.latencyP90S);
    printRow(out, "latency p99", comparison.latencyP99S);
    printRow(out, "SLO attainment", comparison.attainment, false);
    for (const ServedReplica &r : measured.replicas)
        if (r.failed > 0)
            out << "replica " << r.replica << ": " << r.failed << " failed (" << r.failure << ")\n";
    if (run.backend == BackendKind::Gloo)
        out << "note: the run used CPU ranks; the errors mean something only with a cluster\n"
               "      file describing them (hetplan-cli import of a CPU probe, then calibrate).\n";
}

} // namespace hetplan::cli
