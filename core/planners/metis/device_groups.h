#pragma once

// Metis §4.1 ("Expanding device groups") and §4.2.2 part 1 ("Pruning combinations of
// stage-device group mapping"): which GPU sets a pipeline stage may run on, and which
// sequences of them (one per stage, covering every GPU) the search visits.

#include "core/model/topology.h"

#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace hetplan::metis {

// The orders machines are laid out in before being cut into device groups: one per
// permutation of the cluster's GPU types (Metis walks GPU types in every order), machines of
// one type biggest first, then in cluster order. Past kMaxTypeOrders permutations only the
// fastest-first and slowest-first orders are kept.
std::vector<std::vector<int>> machineOrders(const Topology &topology);

// Device-group sizes: powers of two (§2.2's groups), every machine's GPU count and its
// divisors, so that groups can follow machine boundaries. Ascending.
std::vector<int> groupSizes(const Topology &topology);

// §4.2.2 first pruning rule: the stage sizes of `stages` stages, as non-decreasing lists of
// `sizes` summing to `gpus`, each at least gpus / stages · (1 − variance). At most `limit`
// lists, in lexicographic order.
std::vector<std::vector<int>> stageSizeSets(int stages, int gpus, std::span<const int> sizes,
                                            double variance, size_t limit);

// §4.2.2 second pruning rule: the two smallest blocks are paired, again and again, until at
// most `maxLength` blocks remain (or no two blocks of the smallest size are left). A block is
// the run of stage sizes that stays together when the blocks are permuted.
std::vector<std::vector<int>> pairSmallest(std::span<const int> sizes, int maxLength);

// The distinct orders of `blocks`, flattened into stage-size sequences: all of them when
// there are at most `limit`, otherwise `limit` distinct ones drawn with `random`.
std::vector<std::vector<int>> blockOrders(const std::vector<std::vector<int>> &blocks, size_t limit,
                                          std::mt19937_64 &random);

// Cuts the machines of `machineOrder`, GPU by GPU, into consecutive groups of `sizes`: each
// group takes k GPUs from each machine it reaches (§4.1: "selecting k GPUs for each node").
// GPUs of one group are listed machine by machine.
std::vector<std::vector<int>> cutGroups(const Topology &topology, std::span<const int> machineOrder,
                                        std::span<const int> sizes);

// §4.1's uniqueness of device groups: two groups are the same when they have the same size,
// the same GPUs of each type, on machines of the same kind. Machines are interchangeable
// when they have the same GPU type, count, intra link and network links; `classes` gives
// each machine its kind.
std::vector<int> machineClasses(const Topology &topology);
// A key equal for two group sequences that differ only by interchangeable machines.
std::string sequenceKey(const Topology &topology, std::span<const int> classes,
                        const std::vector<std::vector<int>> &groups);

} // namespace hetplan::metis
