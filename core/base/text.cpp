#include "core/base/text.h"

#include <algorithm>
#include <cstdio>

namespace hetplan {

std::string layerRangeText(int layerBegin, int layerEnd)
{
    const int count = layerEnd - layerBegin;
    if (count == 1)
        return std::to_string(layerBegin) + " (1 layer)";
    return std::to_string(layerBegin) + "\u2013" + std::to_string(layerEnd - 1) + " ("
           + std::to_string(count) + " layers)";
}

std::string stageLabel(int stageIndex)
{
    return "stage " + std::to_string(stageIndex);
}

std::string pipelineLabel(int pipelineIndex)
{
    return "pipeline " + std::to_string(pipelineIndex);
}

std::string gibText(double gib, int decimals)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.*f", decimals, gib);
    return text;
}

bool equalsIgnoringCase(std::string_view a, std::string_view b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
        return lower(x) == lower(y);
    });
}

} // namespace hetplan
