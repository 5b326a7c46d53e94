#pragma once

// Fixtures for the model tests: tiny configs, an in-process TP group (one thread per shard, a
// barrier-based all-reduce) and a driver that runs one training step on any cut of the model.

#include "core/model/model_spec.h"
#include "runtime/model/model_shard.h"
#include "runtime/model/weight_set.h"

#include <QtTest>

#include <barrier>
#include <memory>
#include <thread>
#include <vector>

namespace hetplan::runtime::test {

// Small enough for finite differences, with GQA (two query heads per KV head) and a TP degree of
// up to 4 dividing heads, kv_heads and ffn_hidden.
inline ModelConfig tinyConfig(MlpKind mlp)
{
    ModelConfig c;
    c.name = mlp == MlpKind::SwiGlu ? "tiny-swiglu" : "tiny-gelu";
    c.layers = 2;
    c.heads = 8;
    c.kvHeads = 4;
    c.hidden = 32; // head dimension 4
    c.ffnHidden = 40;
    c.vocab = 37;
    c.seqLen = 8;
    c.mlp = mlp;
    return c;
}

// Four layers, GQA (two query heads per KV head), head dimension 8, TP up to 4: the serving
// tests' model on the CPU and the GPU, and the GPU layer probe's; built in milliseconds anywhere.
inline ModelSpec serveModel(MlpKind mlp = MlpKind::SwiGlu)
{
    return {"serve-tiny", 4, 64, 128, 8, 4, 97, 2048, mlp};
}

template<typename T>
T orFail(Result<T> result)
{
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return std::move(result).value();
}

// The ranks of one TP group as threads of this process. allReduceSum adds the members' buffers
// in rank order, so every member gets bit-identical sums.
class ThreadTpGroup
{
public:
    explicit ThreadTpGroup(int size)
        : m_buffers(std::size_t(size))
        , m_barrier(size)
    {
        for (int r = 0; r < size; ++r)
            m_members.push_back(std::make_unique<Member>(*this, r));
    }
    TpComm &member(int rank) { return *m_members[std::size_t(rank)]; }

private:
    class Member final : public TpComm
    {
    public:
        Member(ThreadTpGroup &group, int rank)
            : m_group(group)
            , m_rank(rank)
        {}
        Status allReduceSum(float *data, std::size_t count) override
        {
            m_group.m_buffers[std::size_t(m_rank)] = data;
            m_group.m_barrier.arrive_and_wait(); // every member has posted its buffer
            std::vector<float> sum(count, 0.0f);
            for (const float *buffer : m_group.m_buffers) {
                for (std::size_t i = 0; i < count; ++i)
                    sum[i] += buffer[i];
            }
            m_group.m_barrier.arrive_and_wait(); // everyone has read every buffer
            std::copy(sum.begin(), sum.end(), data);
            return okStatus();
        }

    private:
        ThreadTpGroup &m_group;
        int m_rank;
    };

    std::vector<float *> m_buffers;
    std::barrier<> m_barrier;
    std::vector<std::unique_ptr<Member>> m_members;
};

// What training a cut model produced, assembled into full tensors.
struct StepOutcome
{
    double loss = 0; // of the first iteration
    std::vector<double> lossPerIteration;
    WeightSet gradients; // of the last iteration, before its optimizer step
    WeightSet weights;   // after the last step
    // Per TP rank, the replicated tensors' last gradients (which must agree across the ranks).
    std::vector<WeightSet> replicatedGradients;
};

// The whole model cut into `tpDegree` shards run in threads. Each iteration: forward and
// backward of every micro-batch in order, then one Adam step.
inline StepOutcome tpTraining(const ModelConfig &config, const TrainingSetup &setup, int tpDegree,
                              const std::vector<SampleSpan> &microBatches, int iterations)
{
    std::vector<ModelShard> shards;
    for (int t = 0; t < tpDegree; ++t) {
        ShardSpec spec = wholeModel(config);
        spec.tpIndex = t;
        spec.tpDegree = tpDegree;
        shards.push_back(orFail(ModelShard::create(config, spec, setup)));
    }
    ThreadTpGroup group(tpDegree);
    StepOutcome outcome;
    for (int it = 0; it < iterations; ++it) {
        std::vector<double> losses(static_cast<std::size_t>(tpDegree), 0.0);
        std::vector<std::string> errors(static_cast<std::size_t>(tpDegree));
        std::vector<std::thread> threads;
        for (int t = 0; t < tpDegree; ++t) {
            threads.emplace_back([&, t] {
                ModelShard &shard = shards[std::size_t(t)];
                for (std::size_t m = 0; m < microBatches.size(); ++m) {
                    auto out = shard.forward(int(m), microBatches[m], {}, group.member(t));
                    if (!out) {
                        errors[std::size_t(t)] = out.error().message;
                        return;
                    }
                    losses[std::size_t(t)] += out->lossContribution;
                    auto back = shard.backward(int(m), {}, group.member(t));
                    if (!back) {
                        errors[std::size_t(t)] = back.error().message;
                        return;
                    }
                }
            });
        }
        for (std::thread &thread : threads)
            thread.join();
        for (const std::string &error : errors) {
            if (!error.empty())
                qFatal("%s", error.c_str());
        }
        outcome.lossPerIteration.push_back(losses[0]);
        outcome.gradients.clear();
        outcome.replicatedGradients.clear();
        for (ModelShard &shard : shards) {
            placeShard(outcome.gradients, shard, ShardBuffer::Gradients);
            WeightSet replicated;
            for (const Parameter &p : shard.parameters()) {
                if (p.tensor.cut == TpCut::Replicated)
                    replicated[p.tensor.name] = p.grad;
            }
            outcome.replicatedGradients.push_back(std::move(replicated));
            shard.optimizerStep();
        }
    }
    outcome.loss = outcome.lossPerIteration.front();
    for (const ModelShard &shard : shards)
        placeShard(outcome.weights, shard, ShardBuffer::Values);
    return outcome;
}

inline StepOutcome tpTrainingStep(const ModelConfig &config, const TrainingSetup &setup,
                                  int tpDegree, const std::vector<SampleSpan> &microBatches)
{
    return tpTraining(config, setup, tpDegree, microBatches, 1);
}

} // namespace hetplan::runtime::test
