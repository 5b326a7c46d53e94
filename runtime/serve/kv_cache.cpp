#include "runtime/serve/kv_cache.h"

namespace hetplan::runtime {

KvCache::KvCache(int layers, int slots, int capacityTokens, int kvWidth)
    : m_slots(slots)
    , m_capacityTokens(capacityTokens)
    , m_kvWidth(kvWidth)
    , m_keys(std::size_t(layers) * slots * capacityTokens * kvWidth, 0.0f)
    , m_values(m_keys.size(), 0.0f)
{}

std::size_t KvCache::offset(int layer, int slot) const
{
    return (std::size_t(layer) * m_slots + slot) * std::size_t(m_capacityTokens) * m_kvWidth;
}

} // namespace hetplan::runtime
