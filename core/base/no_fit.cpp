#include "core/base/no_fit.h"

#include "core/base/text.h"

#include <algorithm>

namespace hetplan {

std::string noFitText(const NoFit &noFit)
{
    constexpr std::size_t kNamed = 3;
    std::string text = "the closest (" + noFit.closest + ") needs ";
    for (std::size_t i = 0; i < std::min(kNamed, noFit.over.size()); ++i) {
        const GpuOverflow &gpu = noFit.over[i];
        text += (i == 0 ? "" : ", ") + gibText(gpu.usedGiB) + " GiB on " + gpu.gpu + " ("
                + gpu.gpuType + ", " + gibText(gpu.capacityGiB) + " GiB)";
    }
    if (noFit.over.size() > kNamed)
        text += " and " + std::to_string(noFit.over.size() - kNamed) + " more GPUs over capacity";
    return text;
}

std::vector<std::string> noFitLines(const NoFit &noFit)
{
    std::vector<std::string> lines{"closest layout: " + noFit.closest};
    for (const GpuOverflow &gpu : noFit.over)
        lines.push_back(gpu.gpu + " (" + gpu.gpuType + ") needs " + gibText(gpu.usedGiB)
                        + " GiB of " + gibText(gpu.capacityGiB) + " GiB: " + gibText(gpu.overGiB())
                        + " GiB over");
    return lines;
}

} // namespace hetplan
