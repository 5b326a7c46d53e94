// How long the file readers take against input size (docs/formats.md: any file up to 64 MiB).
// Each reader gets a real file of its format grown to the size by an ignored field ("_padding",
// an array of small objects: the shape that was once quadratic), from 128 KiB to 63 MiB. Time per
// byte should stay flat: a reader linear in its input.
#include "core/io/files.h"
#include "core/io/formats.h"
#include "core/io/hosts_json.h"
#include "core/io/measurement_json.h"
#include "core/io/probe_file.h"
#include "core/io/serving_measurement_json.h"
#include "tests/bench/bench_util.h"

#include <cstdio>
#include <functional>
#include <string>

namespace hetplan::bench {
namespace {

struct Format
{
    const char *name;
    const char *sample; // under the source tree
    std::function<bool(const std::string &)> read;
};

// `sample` with an ignored array of {"k":1} objects as its first field, `bytes` long in all.
std::string grown(const std::string &sample, std::size_t bytes)
{
    const std::size_t open = sample.find('{');
    std::string text = "{\"_padding\": [";
    const std::string body = sample.substr(open + 1);
    while (text.size() + body.size() + 16 < bytes)
        text += text.back() == '[' ? "{\"k\":1}" : ",{\"k\":1}";
    text += "], ";
    text += body;
    return text;
}

void benchReaders()
{
    const Format formats[] = {
        {"cluster", "resources/examples/case-study.cluster.json",
         [](const std::string &t) { return parseCluster(t, "c.json").ok(); }},
        {"hosts", "tests/fuzz/corpus/hosts/three-machines.json",
         [](const std::string &t) { return parseHosts(t, "h.json").ok(); }},
        {"probe", "tests/data/probe/h200-quick.probe.json",
         [](const std::string &t) { return parseProbe(t, "p.json").ok(); }},
        {"measurement", "tests/fuzz/corpus/measurement/two-ranks.json",
         [](const std::string &t) { return parseMeasurement(t, "m.json").ok(); }},
        {"serving", "tests/fuzz/corpus/serving_measurement/two-requests.json",
         [](const std::string &t) { return parseServingMeasurement(t, "s.json").ok(); }},
    };
    const std::size_t sizes[] = {128u << 10, 512u << 10, 2u << 20, 8u << 20, 32u << 20, 63u << 20};
    std::printf("file readers against size (a real file grown by an ignored array of objects):\n");
    std::printf("  %-12s", "format");
    for (std::size_t bytes : sizes)
        std::printf(" %12s", (std::to_string(bytes >> 10) + " KiB").c_str());
    std::printf("   ns/byte at the smallest and largest\n");
    for (const Format &format : formats) {
        auto sample = readTextFile(std::string(HETPLAN_SOURCE_DIR "/") + format.sample);
        if (!sample) {
            std::printf("  %-12s %s\n", format.name, sample.error().message.c_str());
            continue;
        }
        std::printf("  %-12s", format.name);
        double first = 0;
        double last = 0;
        bool allRead = true;
        for (std::size_t bytes : sizes) {
            const std::string text = grown(*sample, bytes);
            bool read = true;
            const int rounds = bytes >= (8u << 20) ? 1 : 3; // a large read lasts seconds
            const double seconds = medianSecondsPerCall([&] { read = format.read(text); }, rounds);
            allRead = allRead && read;
            const double nsPerByte = seconds * 1e9 / double(text.size());
            if (first == 0)
                first = nsPerByte;
            last = nsPerByte;
            std::printf(" %9.1f ms", seconds * 1e3);
            std::fflush(stdout);
        }
        std::printf("   %.1f → %.1f%s\n", first, last,
                    allRead ? "" : "  (a grown file was refused)");
    }
}

const Register kReaders("readers", benchReaders);

} // namespace
} // namespace hetplan::bench
