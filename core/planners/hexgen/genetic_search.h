#pragma once

// HexGen §4.3: the genetic search over pipeline groups. Individuals are partitions of the
// online GPUs into groups (count vectors per machine); each group that can hold the model is
// one serving replica laid out by ReplicaLayouts.

#include "core/planners/hexgen/kmeans_groups.h"
#include "core/planners/hexgen/pipeline_dp.h"
#include "core/planners/hexgen/replica_packing.h"
#include "core/planners/planner.h"
#include "core/planners/search_reporter.h"
#include "core/serving/serving_sim.h"

#include <chrono>
#include <map>
#include <optional>
#include <random>

namespace hetplan {

// What breaks ties between plans of equal SLO attainment at the workload's rate.
enum class TieBreak {
    // More replicas within the SLO, then the higher sustainable rate: HexGen Appendix F's
    // schedule "aims to maximize device memory utilization by incorporating as many model
    // replicas as possible" (12 on the full-price cluster). The default.
    Replicas,
    // The higher sustainable rate, then more replicas: the plan for the highest traffic.
    Rate,
};

// What the search maximises. Eq. 1's objective is the expected SLO attainment over the
// request distribution; the workload fixes that distribution (a Poisson stream at its rate),
// so attainment at the workload's rate comes first. Where plans tie on it (often: at a light
// rate every good plan meets the SLO for every request), TieBreak decides between the number
// of replicas within the SLO and the highest rate sustained at the simulator's target
// attainment. Then Σ 1/latency of all replicas (what still counts where no replica meets
// the SLO) and lower total latency.
struct ServingFitness
{
    double attainment = -1;
    int replicasWithinSlo = 0;
    double sustainableRatePerS = 0;
    double throughputPerS = 0;
    double latencySumS = 0;
    TieBreak tieBreak = TieBreak::Replicas;

    bool betterThan(const ServingFitness &other) const;
    double costS() const { return 1.0 - attainment; } // the trace's "cost"
};

struct SearchSettings
{
    int generations = 200;
    int population = 16;
    int patience = 40;
    std::uint64_t seed = 1;
    TieBreak tieBreak = TieBreak::Replicas;
};

class GeneticSearch
{
public:
    struct Individual
    {
        std::vector<GpuGroup> groups;
        ServingFitness fitness;
    };

    GeneticSearch(ReplicaLayouts &layouts, const ServingSimulator &simulator, double sloS,
                  const SearchSettings &settings);

    // The K-means start (§4.3 Initialization): clusterings at the elbow K and around it, and
    // the elbow clustering with every cluster packed with replicas (ReplicaPacker).
    std::vector<Individual> kMeansStart();
    // A local start (§5.3): the given groups, single mutations of them, and the packed
    // clusters.
    std::vector<Individual> localStart(std::vector<GpuGroup> groups);

    // Evolves the population; reports the best after every generation.
    Individual evolve(std::vector<Individual> population, SearchReporter &reporter);

    ServingFitness fitness(const std::vector<GpuGroup> &groups);
    // Replicas of the groups that hold the model, GPUs handed out machine by machine.
    std::vector<Pipeline> replicas(const std::vector<GpuGroup> &groups);
    // Fitness of replicas given directly (a warm-start plan).
    ServingFitness fitnessOf(std::span<const double> latencyS) const;

private:
    std::optional<std::vector<GpuGroup>> mutate(const std::vector<GpuGroup> &groups);
    // Group i and the groups without a replica in its K-means cluster, packed with replicas
    // (nothing where group i spans clusters).
    std::optional<std::vector<GpuGroup>> packAround(const std::vector<GpuGroup> &groups, size_t i);
    Individual packedStart();
    bool holdsReplica(const GpuGroup &group);
    Individual make(std::vector<GpuGroup> groups);

    ReplicaLayouts &m_layouts;
    ReplicaPacker m_packer;
    const ServingSimulator &m_simulator;
    double m_sloS = 0;
    double m_ratePerS = 0;
    SearchSettings m_settings;
    std::mt19937_64 m_rng;
    // K-means clusters at the elbow K (§4.3): the machines of one cluster share fast links
    // (a region, in the paper's clusters); cluster index per machine, −1 without GPUs.
    CommunicationClusters m_communication;
    int m_elbowK = 1;
    std::vector<GpuGroup> m_clusters;
    std::vector<int> m_clusterOf;
    std::map<std::vector<GpuGroup>, ServingFitness> m_fitness;
};

} // namespace hetplan
