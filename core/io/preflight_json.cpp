#include "core/io/preflight_json.h"

#include "core/io/json_util.h"

namespace hetplan {

std::string writePreflightJson(const PreflightReport &report)
{
    using jsonio::OrderedJson;
    OrderedJson checks = OrderedJson::array();
    for (const PreflightRow &row : report.rows) {
        OrderedJson members = OrderedJson::array();
        for (const PreflightMember &m : row.members)
            members.push_back({{"rank", m.rank}, {"gpu", m.gpu}, {"host", m.host}});
        OrderedJson check = {{"group", row.group}, {"kind", row.kind}};
        if (row.isHop()) {
            check["from"] = row.fromGpu;
            check["to"] = row.toGpu;
        }
        check["members"] = members;
        if (!row.transport.empty())
            check["transport"] = row.transport;
        check["message_bytes"] = row.messageBytes;
        check["ops"] = row.ops;
        check["seconds"] = row.seconds;
        check["achieved_GBps"] = row.achievedBytesPerS ? OrderedJson(*row.achievedBytesPerS / 1e9)
                                                       : OrderedJson(nullptr);
        check["algbw_GBps"]
            = row.algBytesPerS ? OrderedJson(*row.algBytesPerS / 1e9) : OrderedJson(nullptr);
        check["latency_us"]
            = row.latencyS ? OrderedJson(*row.latencyS * 1e6) : OrderedJson(nullptr);
        check["assumed_GBps"] = row.assumedBytesPerS / 1e9;
        check["assumed_latency_us"] = row.assumedLatencyS * 1e6;
        check["verdict"] = verdictName(row.verdict);
        if (row.verdict == PreflightVerdict::Slow)
            check["slow_by"] = row.slowBy;
        if (!row.detail.empty())
            check["detail"] = row.detail;
        checks.push_back(std::move(check));
    }
    OrderedJson doc = {{"format", "hetplan.preflight/1"},
                       {"wall_s", report.wallS},
                       {"slow_fraction", kPreflightSlowFraction},
                       {"exit_code", preflightExitCode(report)}};
    if (!report.jobError.empty())
        doc["job_error"] = report.jobError;
    doc["checks"] = std::move(checks);
    return doc.dump(2) + "\n";
}

} // namespace hetplan
