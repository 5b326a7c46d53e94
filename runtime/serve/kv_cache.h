#pragma once

// The keys and values a stage shard keeps per layer for the sequences it decodes
// (docs/runtime.md, "Serving runs"): `slots` sequences (the workload's batch) of up to
// `capacityTokens` positions each (prompt + output), this shard's KV heads only. Allocated once,
// at its full size, and never grown: a request that would not fit is refused before it starts.

#include <cstddef>
#include <vector>

namespace hetplan::runtime {

class KvCache
{
public:
    KvCache() = default;
    KvCache(int layers, int slots, int capacityTokens, int kvWidth);

    int slots() const { return m_slots; }
    int capacityTokens() const { return m_capacityTokens; }
    int kvWidth() const { return m_kvWidth; }

    // [capacityTokens × kvWidth], row p = position p of the sequence in `slot`. `layer` counts
    // from this shard's first layer.
    float *keys(int layer, int slot) { return m_keys.data() + offset(layer, slot); }
    float *values(int layer, int slot) { return m_values.data() + offset(layer, slot); }

    std::size_t bytes() const { return (m_keys.size() + m_values.size()) * sizeof(float); }

private:
    std::size_t offset(int layer, int slot) const;

    int m_slots = 0;
    int m_capacityTokens = 0;
    int m_kvWidth = 0;
    std::vector<float> m_keys;
    std::vector<float> m_values;
};

} // namespace hetplan::runtime
