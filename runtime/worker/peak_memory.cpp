#include "runtime/worker/peak_memory.h"

#include <sys/resource.h>

namespace hetplan::runtime {

double peakResidentGiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return double(usage.ru_maxrss) / (1024.0 * 1024.0); // ru_maxrss is in KiB on Linux
}

} // namespace hetplan::runtime
