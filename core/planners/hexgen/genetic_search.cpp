#include "core/planners/hexgen/genetic_search.h"

#include "core/cost/problem.h"
#include "core/planners/hexgen/kmeans_groups.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace hetplan {

namespace {

enum class Mutation { Merge, Split, Swap, Pack };

constexpr int kMaxChain = 4;

// One canonical form per partition: parts by machine without zeros, groups sorted.
void normalise(std::vector<GpuGroup> &groups)
{
    for (GpuGroup &group : groups) {
        std::erase_if(group, [](const GroupPart &p) { return p.count <= 0; });
        std::sort(group.begin(), group.end());
    }
    std::erase_if(groups, [](const GpuGroup &g) { return g.empty(); });
    std::sort(groups.begin(), groups.end());
}

double messageBytes(const Problem &problem)
{
    const InferWorkload &infer = problem.workload.infer;
    return double(infer.batch) * infer.promptLen * problem.model.hidden
           * bytesPerElement(infer.precision);
}

bool fitterFirst(const GeneticSearch::Individual &a, const GeneticSearch::Individual &b)
{
    return a.fitness.betterThan(b.fitness);
}

} // namespace

bool ServingFitness::betterThan(const ServingFitness &other) const
{
    const auto key = [](const ServingFitness &f) {
        const bool replicasFirst = f.tieBreak == TieBreak::Replicas;
        return std::tuple(-f.attainment, replicasFirst ? -f.replicasWithinSlo : 0,
                          -f.sustainableRatePerS, -f.replicasWithinSlo, -f.throughputPerS,
                          f.latencySumS);
    };
    return key(*this) < key(other);
}

GeneticSearch::GeneticSearch(ReplicaLayouts &layouts, const ServingSimulator &simulator,
                             double sloS, const SearchSettings &settings)
    : m_layouts(layouts)
    , m_packer(layouts, sloS)
    , m_simulator(simulator)
    , m_sloS(sloS)
    , m_ratePerS(layouts.problem().workload.infer.requestRatePerS)
    , m_settings(settings)
    , m_rng(settings.seed)
    , m_communication(layouts.problem().topology, layouts.available(),
                      messageBytes(layouts.problem()))
    , m_elbowK(m_communication.elbow(settings.seed))
{
    m_clusters = m_communication.cluster(m_elbowK, settings.seed);
    m_clusterOf.assign(layouts.available().size(), -1);
    for (size_t c = 0; c < m_clusters.size(); ++c)
        for (const GroupPart &part : m_clusters[c])
            m_clusterOf[size_t(part.machine)] = int(c);
}

ServingFitness GeneticSearch::fitnessOf(std::span<const double> latencyS) const
{
    ServingFitness fitness;
    fitness.tieBreak = m_settings.tieBreak;
    fitness.attainment = m_simulator.attainment(latencyS, m_ratePerS, m_sloS);
    fitness.sustainableRatePerS = m_simulator.maxSustainableRate(latencyS, m_sloS);
    for (double l : latencyS) {
        fitness.latencySumS += l;
        fitness.throughputPerS += 1.0 / l;
        fitness.replicasWithinSlo += l <= m_sloS ? 1 : 0;
    }
    return fitness;
}

ServingFitness GeneticSearch::fitness(const std::vector<GpuGroup> &groups)
{
    const auto it = m_fitness.find(groups);
    if (it != m_fitness.end())
        return it->second;
    std::vector<double> latencyS;
    for (const GpuGroup &group : groups)
        if (const ReplicaDraft &draft = m_layouts.layout(group); draft.fits)
            latencyS.push_back(draft.latencyS);
    return m_fitness.emplace(groups, fitnessOf(latencyS)).first->second;
}

bool GeneticSearch::holdsReplica(const GpuGroup &group)
{
    const ReplicaDraft &draft = m_layouts.layout(group);
    return draft.fits && draft.latencyS <= m_sloS;
}

std::vector<Pipeline> GeneticSearch::replicas(const std::vector<GpuGroup> &groups)
{
    const std::vector<std::vector<int>> &available = m_layouts.available();
    std::vector<size_t> cursor(available.size(), 0);
    std::vector<std::vector<int>> gpusOf(available.size());
    std::vector<Pipeline> pipelines;
    for (const GpuGroup &group : groups) {
        for (const GroupPart &part : group) {
            const std::vector<int> &gpus = available[size_t(part.machine)];
            size_t &next = cursor[size_t(part.machine)];
            gpusOf[size_t(part.machine)].assign(gpus.begin() + std::ptrdiff_t(next),
                                                gpus.begin() + std::ptrdiff_t(next) + part.count);
            next += size_t(part.count);
        }
        if (const ReplicaDraft &draft = m_layouts.layout(group); draft.fits)
            pipelines.push_back(m_layouts.materialise(draft, gpusOf));
    }
    return pipelines;
}

GeneticSearch::Individual GeneticSearch::make(std::vector<GpuGroup> groups)
{
    normalise(groups);
    Individual individual;
    individual.fitness = fitness(groups);
    individual.groups = std::move(groups);
    return individual;
}

std::optional<std::vector<GpuGroup>> GeneticSearch::mutate(const std::vector<GpuGroup> &groups)
{
    constexpr int kAttempts = 16;
    const size_t n = groups.size();
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        const auto mutation = Mutation(m_rng() % 4);
        std::vector<GpuGroup> child = groups;
        if (mutation == Mutation::Merge) {
            // τ¹, τ² → τ¹ + τ².
            if (n < 2)
                continue;
            const size_t i = m_rng() % n;
            const size_t j = (i + 1 + m_rng() % (n - 1)) % n;
            child[i] = mergedGroups(groups[i], groups[j]);
            child.erase(child.begin() + std::ptrdiff_t(j));
        } else if (mutation == Mutation::Split) {
            // τ → ⌊τ/2⌋, ⌈τ/2⌉ per kind; both halves must hold the model (early rejection).
            const size_t i = m_rng() % n;
            GpuGroup low;
            GpuGroup high;
            for (const GroupPart &part : groups[i]) {
                low.push_back({part.machine, part.count / 2});
                high.push_back({part.machine, part.count - part.count / 2});
            }
            std::erase_if(low, [](const GroupPart &p) { return p.count == 0; });
            if (low.empty() || !m_layouts.canHoldModel(low) || !m_layouts.canHoldModel(high))
                continue;
            child[i] = std::move(high);
            child.push_back(std::move(low));
        } else if (mutation == Mutation::Pack) {
            // As many replicas as memory and the SLO allow (Appendix F), in one group and
            // the idle GPUs of its clusters.
            auto packed = packAround(groups, m_rng() % n);
            if (!packed)
                continue;
            child = std::move(*packed);
        } else {
            // One GPU of a sampled kind moves from τ² to τ¹; a donor that held the model
            // must still hold it.
            if (n < 2)
                continue;
            const size_t to = m_rng() % n;
            const size_t from = (to + 1 + m_rng() % (n - 1)) % n;
            const size_t kind = m_rng() % groups[from].size();
            const int machine = groups[from][kind].machine;
            --child[from][kind].count;
            child[to] = mergedGroups(child[to], GpuGroup{{machine, 1}});
            std::erase_if(child[from], [](const GroupPart &p) { return p.count == 0; });
            if (m_layouts.canHoldModel(groups[from]) && !m_layouts.canHoldModel(child[from]))
                continue;
        }
        normalise(child);
        return child;
    }
    return std::nullopt;
}

std::optional<std::vector<GpuGroup>> GeneticSearch::packAround(const std::vector<GpuGroup> &groups,
                                                               size_t i)
{
    const int cluster = m_clusterOf[size_t(groups[i].front().machine)];
    const auto inCluster = [&](const GpuGroup &group) {
        return std::all_of(group.begin(), group.end(), [&](const GroupPart &p) {
            return m_clusterOf[size_t(p.machine)] == cluster;
        });
    };
    if (!inCluster(groups[i]))
        return std::nullopt;
    GpuGroup pool = groups[i];
    std::vector<GpuGroup> child;
    for (size_t j = 0; j < groups.size(); ++j) {
        if (j == i)
            continue;
        if (inCluster(groups[j]) && !holdsReplica(groups[j]))
            pool = mergedGroups(pool, groups[j]);
        else
            child.push_back(groups[j]);
    }
    const std::optional<std::vector<GpuGroup>> &packed = m_packer.pack(pool);
    if (!packed)
        return std::nullopt;
    child.insert(child.end(), packed->begin(), packed->end());
    normalise(child);
    if (child == groups)
        return std::nullopt;
    return child;
}

GeneticSearch::Individual GeneticSearch::packedStart()
{
    std::vector<GpuGroup> groups;
    for (const GpuGroup &cluster : m_clusters) {
        const std::optional<std::vector<GpuGroup>> &packed = m_packer.pack(cluster);
        if (packed)
            groups.insert(groups.end(), packed->begin(), packed->end());
        else
            groups.push_back(cluster);
    }
    return make(std::move(groups));
}

std::vector<GeneticSearch::Individual> GeneticSearch::kMeansStart()
{
    int machines = 0;
    for (const std::vector<int> &gpus : m_layouts.available())
        machines += gpus.empty() ? 0 : 1;
    // The elbow K first, then larger and smaller K: M is not fixed after initialisation
    // (§4.3), and a spread of K gives the mutations different places to start from.
    std::vector<int> ks{m_elbowK};
    for (int k = m_elbowK + 1; k <= machines; ++k)
        ks.push_back(k);
    for (int k = m_elbowK - 1; k >= 1; --k)
        ks.push_back(k);
    std::vector<Individual> population;
    for (int i = 0; i < m_settings.population; ++i) {
        const int k = ks[size_t(i) % ks.size()];
        population.push_back(
            make(m_communication.cluster(k, m_settings.seed * 7919 + std::uint64_t(i))));
    }
    population.push_back(packedStart());
    return population;
}

std::vector<GeneticSearch::Individual> GeneticSearch::localStart(std::vector<GpuGroup> groups)
{
    normalise(groups);
    std::vector<Individual> population{make(groups)};
    for (int i = 1; i < m_settings.population; ++i)
        if (auto child = mutate(groups))
            population.push_back(make(std::move(*child)));
    population.push_back(packedStart());
    return population;
}

GeneticSearch::Individual GeneticSearch::evolve(std::vector<Individual> population,
                                                SearchReporter &reporter)
{
    const auto sameGroups
        = [](const Individual &a, const Individual &b) { return a.groups == b.groups; };
    const auto select = [&](std::vector<Individual> &all) {
        std::stable_sort(all.begin(), all.end(), fitterFirst);
        std::vector<Individual> kept;
        for (Individual &candidate : all) {
            if (int(kept.size()) == m_settings.population)
                break;
            if (std::none_of(kept.begin(), kept.end(),
                             [&](const Individual &k) { return sameGroups(k, candidate); }))
                kept.push_back(std::move(candidate));
        }
        all = std::move(kept);
    };
    select(population);
    Individual best = population.front();
    int improvedAt = 0;
    Plan bestPlan;
    const auto report = [&](int generation) {
        bestPlan.pipelines = replicas(best.groups);
        reporter.report(generation, best.fitness.costS(), &bestPlan);
    };
    report(0);
    for (int generation = 1; generation <= m_settings.generations; ++generation) {
        if (reporter.shouldStop())
            break;
        const size_t parents = population.size();
        for (int o = 0; o < m_settings.population && !reporter.shouldStop(); ++o) {
            // Binary tournament.
            const size_t a = m_rng() % parents;
            const size_t b = m_rng() % parents;
            const Individual &parent
                = fitterFirst(population[b], population[a]) ? population[b] : population[a];
            // One mutation, or a short chain of them (each further one with probability ½,
            // at most four) so that offspring can cross a step that is worse on its own.
            std::optional<std::vector<GpuGroup>> child = mutate(parent.groups);
            for (int step = 1; child && step < kMaxChain && m_rng() % 2 == 0; ++step)
                if (auto next = mutate(*child))
                    child = std::move(next);
            if (child)
                population.push_back(make(std::move(*child)));
        }
        select(population);
        if (population.front().fitness.betterThan(best.fitness)) {
            best = population.front();
            improvedAt = generation;
        }
        report(generation);
        if (generation - improvedAt >= m_settings.patience)
            break;
    }
    return best;
}

} // namespace hetplan
