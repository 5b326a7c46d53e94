#include "runtime/serve/serve_engine.h"

#include "runtime/model/model_init.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <string>
#include <thread>

namespace hetplan::runtime {

namespace {

// A step's header, the first message of every step: what follows and how much of it.
enum class Command { Step = 1, Stop = 2, Idle = 3 };
constexpr std::size_t kHeaderFloats = 3; // command, token rows, logit rows
constexpr std::size_t kRowFloats = 3;    // slot, position, token
constexpr std::size_t kLogitFloats = 2;  // row index, request id
// With no request in flight the scheduler still sends a step this often, so that the other
// stages' receives do not run into the communication timeout while the stream is quiet.
constexpr double kIdleStepS = 2.0;
// How long the scheduler sleeps at most before it looks at the stop token again.
constexpr double kPollS = 0.02;

// Floats carry small integers exactly (below 2²⁴: slots, positions, tokens, request ids).
int asInt(float value)
{
    return int(value);
}

// One rank's part of a step: receive it (unless it is the scheduler), compute, pass it on.
class StageRunner
{
public:
    StageRunner(ServeStage &shard, ServeLinks &links, const ServeRole &role,
                const ServeOptions &options)
        : m_shard(shard)
        , m_links(links)
        , m_role(role)
        , m_options(options)
    {}

    std::vector<float> header = std::vector<float>(kHeaderFloats, 0.0f);
    std::vector<float> payload;

    // Receives the next step's header and payload (every rank but the scheduler). Returns the
    // command; a Stop or Idle has been passed on to the next stage already.
    Result<Command> receive()
    {
        if (m_role.leader && !m_role.first())
            if (Status s = m_links.recvFromPrevious(header.data(), header.size()); !s)
                return s.error();
        return shareHeader();
    }

    // The scheduler's own step, built in header and payload.
    Result<Command> start() { return shareHeader(); }

    // Computes the step received or started; on the last stage's leader fills `tokens` (one
    // per logit row), and on the scheduler of a multi-stage replica receives them.
    Status compute(std::vector<int> &tokens)
    {
        const int n = asInt(header[1]);
        const int k = asInt(header[2]);
        const std::size_t hidden = std::size_t(m_shard.config().hidden);
        payload.resize(std::size_t(n) * kRowFloats + std::size_t(k) * kLogitFloats);
        if (!m_role.first()) {
            if (Status s = leaderReceive(payload); !s)
                return s;
            m_input.resize(std::size_t(n) * hidden);
            if (Status s = leaderReceive(m_input); !s)
                return s;
        } else if (m_role.tpDegree > 1) {
            if (Status s = m_links.broadcastInStage(payload.data(), payload.size()); !s)
                return s;
        }
        m_rows.resize(std::size_t(n));
        for (int r = 0; r < n; ++r) {
            const float *row = payload.data() + std::size_t(r) * kRowFloats;
            m_rows[std::size_t(r)] = {asInt(row[0]), asInt(row[1]), asInt(row[2])};
        }
        m_logitRows.resize(std::size_t(k));
        const float *logits = payload.data() + std::size_t(n) * kRowFloats;
        for (int i = 0; i < k; ++i)
            m_logitRows[std::size_t(i)] = asInt(logits[std::size_t(i) * kLogitFloats]);
        const std::span<const float> input
            = m_role.first() ? std::span<const float>() : std::span<const float>(m_input);
        if (Status s = m_shard.forward(m_rows, input, m_logitRows, m_output); !s)
            return s;
        if (!m_role.leader)
            return okStatus();
        if (!m_role.last()) {
            if (Status s = m_links.sendToNext(header.data(), header.size()); !s)
                return s;
            if (Status s = m_links.sendToNext(payload.data(), payload.size()); !s)
                return s;
            if (Status s = m_links.sendToNext(m_output.data(), m_output.size()); !s)
                return s;
            if (!m_role.first() || k == 0)
                return okStatus();
            std::vector<float> back(static_cast<std::size_t>(k));
            if (Status s = m_links.recvFromLast(back.data(), back.size()); !s)
                return s;
            tokens.assign(back.begin(), back.end());
            return okStatus();
        }
        const std::size_t vocab = std::size_t(m_shard.config().vocab);
        tokens.resize(std::size_t(k));
        for (int i = 0; i < k; ++i) {
            const TokenRow &row = m_rows[std::size_t(m_logitRows[std::size_t(i)])];
            const int request = asInt(logits[std::size_t(i) * kLogitFloats + 1]);
            const std::span<const float> rowLogits(m_output.data() + std::size_t(i) * vocab, vocab);
            if (m_options.onLogits)
                m_options.onLogits(request, row.position + 1, rowLogits);
            tokens[std::size_t(i)]
                = sampleToken(rowLogits, m_options.sampling, request, row.position + 1);
        }
        if (m_role.first() || k == 0)
            return okStatus();
        const std::vector<float> back(tokens.begin(), tokens.end());
        return m_links.sendToFirst(back.data(), back.size());
    }

private:
    Result<Command> shareHeader()
    {
        if (m_role.tpDegree > 1)
            if (Status s = m_links.broadcastInStage(header.data(), header.size()); !s)
                return s.error();
        const auto command = Command(asInt(header[0]));
        if (command != Command::Step && m_role.leader && !m_role.last())
            if (Status s = m_links.sendToNext(header.data(), header.size()); !s)
                return s.error();
        return command;
    }

    // The leader receives from the previous stage, then hands it to its TP ranks.
    Status leaderReceive(std::vector<float> &buffer)
    {
        if (buffer.empty())
            return okStatus();
        if (m_role.leader)
            if (Status s = m_links.recvFromPrevious(buffer.data(), buffer.size()); !s)
                return s;
        if (m_role.tpDegree > 1)
            return m_links.broadcastInStage(buffer.data(), buffer.size());
        return okStatus();
    }

    ServeStage &m_shard;
    ServeLinks &m_links;
    ServeRole m_role;
    const ServeOptions &m_options;
    std::vector<float> m_input, m_output;
    std::vector<TokenRow> m_rows;
    std::vector<int> m_logitRows;
};

// A request in a batch slot.
struct Active
{
    std::size_t request = 0; // index into the scheduler's requests
    int slot = 0;
    int prefilled = 0; // prompt tokens already in the cache
    std::vector<int> generated;
};

class Scheduler
{
public:
    Scheduler(StageRunner &runner, const ServeStage &shard, std::vector<ServingRequest> requests,
              const ServeOptions &options)
        : m_runner(runner)
        , m_capacity(shard.capacityTokens())
        , m_vocab(shard.config().vocab)
        , m_requests(std::move(requests))
        , m_options(options)
    {
        std::stable_sort(m_requests.begin(), m_requests.end(),
                         [](const ServingRequest &a, const ServingRequest &b) {
                             return a.arrivalS < b.arrivalS;
                         });
        for (const ServingRequest &r : m_requests) {
            ServedRequest s;
            s.id = r.id;
            s.replica = r.replica;
            s.arrivalS = r.arrivalS;
            s.promptTokens = r.promptTokens;
            m_outcome.served.push_back(std::move(s));
        }
        for (int slot = shard.slots(); slot-- > 0;)
            m_freeSlots.push_back(slot);
    }

    ServeOutcome run(const std::stop_token &stop)
    {
        double lastStepS = m_options.nowS();
        while (m_next < m_requests.size() || !m_active.empty()) {
            if (stop.stop_requested()) {
                failUnfinished("cancelled");
                break;
            }
            admitArrived();
            if (m_active.empty()) {
                if (m_next >= m_requests.size())
                    break;
                const double now = m_options.nowS();
                if (now - lastStepS >= kIdleStepS) {
                    if (Status s = signal(Command::Idle); !s)
                        return failed(s.error());
                    lastStepS = now;
                }
                const double wait = std::min(m_requests[m_next].arrivalS - now, kPollS);
                if (wait > 0)
                    std::this_thread::sleep_for(std::chrono::duration<double>(wait));
                continue;
            }
            if (Status s = step(); !s)
                return failed(s.error());
            lastStepS = m_options.nowS();
        }
        if (Status s = signal(Command::Stop); !s)
            m_outcome.error = s.error();
        return std::move(m_outcome);
    }

private:
    void admitArrived()
    {
        while (m_next < m_requests.size() && !m_freeSlots.empty()
               && m_requests[m_next].arrivalS <= m_options.nowS()) {
            const std::size_t index = m_next++;
            const ServingRequest &r = m_requests[index];
            ServedRequest &served = m_outcome.served[index];
            if (r.promptTokens < 1 || r.outputTokens < 1) {
                served.failure = "a request needs at least one prompt and one output token";
                continue;
            }
            if (r.promptTokens + r.outputTokens > m_capacity) {
                served.failure = "its " + std::to_string(r.promptTokens + r.outputTokens)
                                 + " prompt + output tokens exceed the KV cache's "
                                 + std::to_string(m_capacity) + " tokens per batch slot";
                continue;
            }
            served.admittedS = m_options.nowS();
            m_active.push_back({index, m_freeSlots.back(), 0, {}});
            m_freeSlots.pop_back();
        }
    }

    // One step: every active sequence's prefill chunk or next token.
    Status step()
    {
        std::vector<float> &payload = m_runner.payload;
        std::vector<float> rows;
        std::vector<float> logits;
        int n = 0;
        std::vector<Active *> producing; // in logit-row order
        for (Active &a : m_active) {
            const ServingRequest &r = m_requests[a.request];
            auto addRow = [&](int position, int token) {
                rows.insert(rows.end(), {float(a.slot), float(position), float(token)});
                ++n;
            };
            if (a.prefilled < r.promptTokens) {
                const int left = r.promptTokens - a.prefilled;
                const int chunk = m_options.prefillChunkTokens > 0
                                      ? std::min(left, m_options.prefillChunkTokens)
                                      : left;
                for (int p = a.prefilled; p < a.prefilled + chunk; ++p)
                    addRow(p, promptToken(m_options.promptSeed, r.id, p, m_vocab));
                a.prefilled += chunk;
                if (a.prefilled < r.promptTokens)
                    continue; // no token from a partial prompt
            } else {
                addRow(r.promptTokens + int(a.generated.size()) - 1, a.generated.back());
            }
            logits.insert(logits.end(), {float(n - 1), float(r.id)});
            producing.push_back(&a);
        }
        m_runner.header = {float(Command::Step), float(n), float(producing.size())};
        payload = std::move(rows);
        payload.insert(payload.end(), logits.begin(), logits.end());
        if (auto started = m_runner.start(); !started)
            return started.error();
        std::vector<int> tokens;
        if (Status s = m_runner.compute(tokens); !s)
            return s;
        const double now = m_options.nowS();
        for (std::size_t i = 0; i < producing.size(); ++i) {
            Active &a = *producing[i];
            a.generated.push_back(tokens[i]);
            ServedRequest &served = m_outcome.served[a.request];
            if (a.generated.size() == 1)
                served.firstTokenS = now;
            served.outputTokens = int(a.generated.size());
        }
        for (auto it = m_active.begin(); it != m_active.end();) {
            if (int(it->generated.size()) < m_requests[it->request].outputTokens) {
                ++it;
                continue;
            }
            ServedRequest &served = m_outcome.served[it->request];
            served.finishS = now;
            served.completed = true;
            if (m_options.onCompleted)
                m_options.onCompleted(served);
            m_outcome.tokens[served.id] = std::move(it->generated);
            m_freeSlots.push_back(it->slot);
            it = m_active.erase(it);
        }
        return okStatus();
    }

    Status signal(Command command)
    {
        m_runner.header = {float(command), 0.0f, 0.0f};
        auto sent = m_runner.start();
        return sent ? okStatus() : Status(sent.error());
    }

    void failUnfinished(const std::string &why)
    {
        for (Active &a : m_active) {
            m_outcome.served[a.request].failure = why;
            m_outcome.tokens[m_requests[a.request].id] = std::move(a.generated);
        }
        m_active.clear();
        for (; m_next < m_requests.size(); ++m_next)
            m_outcome.served[m_next].failure = why;
    }

    ServeOutcome failed(const Error &error)
    {
        failUnfinished("replica " + std::to_string(m_requests.empty() ? -1 : m_requests[0].replica)
                       + " failed: " + error.message);
        m_outcome.error = error;
        return std::move(m_outcome);
    }

    StageRunner &m_runner;
    int m_capacity;
    int m_vocab;
    std::vector<ServingRequest> m_requests; // by arrival
    const ServeOptions &m_options;
    ServeOutcome m_outcome;
    std::vector<int> m_freeSlots;
    std::deque<Active> m_active;
    std::size_t m_next = 0; // the first request not yet admitted
};

// A CPU shard as a ServeStage, with its stage's TP communicator.
class CpuServeStage final : public ServeStage
{
public:
    CpuServeStage(ServeShard &shard, TpComm &tp)
        : m_shard(shard)
        , m_tp(tp)
    {}
    const ModelConfig &config() const override { return m_shard.config(); }
    int slots() const override { return m_shard.cache().slots(); }
    int capacityTokens() const override { return m_shard.cache().capacityTokens(); }
    Status forward(std::span<const TokenRow> rows, std::span<const float> input,
                   std::span<const int> logitRows, std::vector<float> &output) override
    {
        return m_shard.forward(rows, input, logitRows, m_tp, output);
    }

private:
    ServeShard &m_shard;
    TpComm &m_tp;
};

} // namespace

int promptToken(std::uint64_t seed, int requestId, int position, int vocab)
{
    return syntheticToken(seed, requestId, position, vocab);
}

ServeOutcome runServeRank(ServeShard &shard, ServeLinks &links, const ServeRole &role,
                          std::vector<ServingRequest> requests, const ServeOptions &options,
                          const std::stop_token &stop)
{
    CpuServeStage stage(shard, links.tp());
    return runServeRank(stage, links, role, std::move(requests), options, stop);
}

ServeOutcome runServeRank(ServeStage &stage, ServeLinks &links, const ServeRole &role,
                          std::vector<ServingRequest> requests, const ServeOptions &options,
                          const std::stop_token &stop)
{
    StageRunner runner(stage, links, role, options);
    if (role.first() && role.leader)
        return Scheduler(runner, stage, std::move(requests), options).run(stop);
    ServeOutcome outcome;
    for (;;) {
        auto command = runner.receive();
        if (!command) {
            outcome.error = command.error();
            return outcome;
        }
        if (*command == Command::Stop)
            return outcome;
        if (*command == Command::Idle)
            continue;
        std::vector<int> tokens;
        if (Status s = runner.compute(tokens); !s) {
            outcome.error = s.error();
            return outcome;
        }
    }
}

} // namespace hetplan::runtime
