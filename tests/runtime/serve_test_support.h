#pragma once

// Runs a serving plan's ranks as threads of this process, each with its own Gloo device
// (runtime/comm), and the single-process reference decode to compare them with.

#include "runtime/comm/comm.h"
#include "runtime/program/compile.h"
#include "runtime/serve/reference_decode.h"
#include "runtime/serve/serve_engine.h"

#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace hetplan::runtime::test {

// What every rank of a served plan produced, gathered.
struct ServedPlan
{
    std::vector<ServedRequest> served; // every request, by id
    std::map<int, std::vector<int>> tokens;
    // (request id, position of the token picked) → the logits it was picked from.
    std::map<std::pair<int, int>, std::vector<float>> logits;
    std::vector<std::string> errors; // per rank that stopped with one
};

// Makes rank `rank`'s stage shard (on its thread); servePlan's default is the CPU ServeShard.
using StageMaker
    = std::function<Result<std::unique_ptr<ServeStage>>(int rank, const ShardSpec &spec)>;

// Serves `requests` (their `replica` set) on every rank of `program` at once.
inline ServedPlan servePlan(const JobProgram &program, const ModelConfig &config,
                            const WeightSource &weights, ServeShardOptions shardOptions,
                            const std::vector<ServingRequest> &requests, ServeOptions options,
                            const StageMaker &makeStage = {})
{
    QTemporaryDir rendezvous;
    const auto start = std::chrono::steady_clock::now();
    options.nowS = [start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    ServedPlan result;
    std::mutex lock;
    options.onLogits = [&](int request, int position, std::span<const float> logits) {
        const std::lock_guard guard(lock);
        result.logits[{request, position}].assign(logits.begin(), logits.end());
    };
    const int world = int(program.ranks.size());
    const std::vector<GroupSpec> groups = serveGroups(program);
    const auto rankBody = [&](int rank) -> ServeOutcome {
        CommOptions commOptions;
        commOptions.rendezvous = rendezvous.path().toStdString();
        commOptions.timeoutS = 60;
        auto comm = Comm::open(commOptions, rank, world);
        if (!comm)
            return {{}, {}, comm.error()};
        if (Status s = (*comm)->connect(groups); !s)
            return {{}, {}, s.error()};
        const Rank &r = program.ranks[std::size_t(rank)];
        const ShardSpec spec{r.layerBegin, r.layerEnd, r.tpIndex, r.tpDegree, r.embedding, r.head};
        const ServeRole role = serveRole(program, rank);
        std::vector<ServingRequest> mine;
        if (role.first() && role.leader)
            for (const ServingRequest &q : requests)
                if (q.replica == role.replica)
                    mine.push_back(q);
        const auto links = glooServeLinks(**comm, program, rank);
        if (makeStage) {
            auto stage = makeStage(rank, spec);
            if (!stage)
                return {{}, {}, stage.error()};
            return runServeRank(**stage, *links, role, mine, options);
        }
        auto shard = ServeShard::create(config, spec, weights, shardOptions);
        if (!shard)
            return {{}, {}, shard.error()};
        return runServeRank(*shard, *links, role, mine, options);
    };
    std::vector<ServeOutcome> outcomes(static_cast<std::size_t>(world));
    std::vector<std::thread> threads;
    for (int rank = 0; rank < world; ++rank)
        threads.emplace_back([&, rank] { outcomes[std::size_t(rank)] = rankBody(rank); });
    for (std::thread &t : threads)
        t.join();
    for (ServeOutcome &o : outcomes) {
        if (o.error)
            result.errors.push_back(o.error->message);
        for (ServedRequest &s : o.served)
            result.served.push_back(std::move(s));
        result.tokens.merge(o.tokens);
    }
    std::sort(result.served.begin(), result.served.end(),
              [](const ServedRequest &a, const ServedRequest &b) { return a.id < b.id; });
    return result;
}

inline std::vector<int> promptOf(const ServeOptions &options, const ServingRequest &request,
                                 int vocab)
{
    std::vector<int> prompt;
    for (int p = 0; p < request.promptTokens; ++p)
        prompt.push_back(promptToken(options.promptSeed, request.id, p, vocab));
    return prompt;
}

} // namespace hetplan::runtime::test
