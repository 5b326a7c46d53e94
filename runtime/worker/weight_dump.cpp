#include "runtime/worker/weight_dump.h"

#include "core/io/files.h"

#include <bit>
#include <cstring>
#include <sstream>

namespace hetplan::runtime {
namespace {

constexpr std::string_view kWeightsFormat = "hetplan.weights/1";

static_assert(std::endian::native == std::endian::little, "the dump is little-endian fp32");

} // namespace

Status writeWeightDump(const std::string &path, const std::vector<ParamView> &params)
{
    std::string out(kWeightsFormat);
    out += '\n';
    for (const ParamView &p : params) {
        out += p.name + ' ' + std::to_string(p.fullElements) + ' ' + std::to_string(p.sliceBegin)
               + ' ' + std::to_string(p.sliceEnd) + '\n';
        const std::size_t bytes = std::size_t(p.sliceEnd - p.sliceBegin) * sizeof(float);
        const std::size_t at = out.size();
        out.resize(at + bytes);
        std::memcpy(out.data() + at, p.value, bytes);
    }
    return writeFileAtomic(path, out);
}

Result<std::vector<WeightSlice>> readWeightDump(const std::string &path)
{
    auto text = readTextFile(path, std::size_t(1) << 31);
    if (!text)
        return text.error();
    const std::string &data = *text;
    const auto bad = [&](const std::string &why) {
        return badInput(path + ": not a weight dump (" + std::string(kWeightsFormat) + "): " + why);
    };
    std::size_t at = data.find('\n');
    if (at == std::string::npos || data.compare(0, at, kWeightsFormat) != 0)
        return bad("the first line must be " + std::string(kWeightsFormat));
    ++at;
    std::vector<WeightSlice> slices;
    while (at < data.size()) {
        const std::size_t eol = data.find('\n', at);
        if (eol == std::string::npos)
            return bad("a header line has no end");
        std::istringstream header(data.substr(at, eol - at));
        WeightSlice s;
        if (!(header >> s.name >> s.fullElements >> s.sliceBegin >> s.sliceEnd) || s.sliceBegin < 0
            || s.sliceEnd < s.sliceBegin || s.sliceEnd > s.fullElements)
            return bad("malformed header \"" + data.substr(at, eol - at) + "\"");
        at = eol + 1;
        const std::size_t bytes = std::size_t(s.sliceEnd - s.sliceBegin) * sizeof(float);
        if (data.size() - at < bytes)
            return bad(s.name + " is cut short");
        s.values.resize(std::size_t(s.sliceEnd - s.sliceBegin));
        std::memcpy(s.values.data(), data.data() + at, bytes);
        at += bytes;
        slices.push_back(std::move(s));
    }
    return slices;
}

} // namespace hetplan::runtime
