// hetplan-probe: measures hosts and the links between them and writes hetplan.probe/1
// (docs/probe.md, docs/formats.md "Probe").
#include "core/io/files.h"
#include "core/io/loaders.h"
#include "runtime/model/compute_pace.h"
#include "runtime/model/model_config.h"
#include "runtime/probe/host_probe.h"
#include "runtime/probe/layer_figure.h"
#include "runtime/probe/net_probe.h"
#include "runtime/probe/probe_report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <map>
#include <unistd.h>

using namespace hetplan;
using namespace hetplan::runtime;
using namespace hetplan::runtime::probe;

namespace {

// Leaves at once: after a failed transfer Gloo's buffers may still be posted, and their
// destructors would wait for peers that are gone.
[[noreturn]] void die(int rank, const Error &error)
{
    std::cerr << "hetplan-probe: rank " << rank << ": error: " << error.message << std::endl;
    std::fflush(nullptr);
    std::_Exit(error.kind == ErrorKind::BadInput ? 2 : 1);
}

template<typename T>
T orDie(int rank, Result<T> result)
{
    if (!result)
        die(rank, result.error());
    return std::move(*result);
}

std::string thisHostName()
{
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
        return "localhost";
    return name;
}

// Every rank's host name, the same list on every rank; ranks sharing a host are told apart as
// "host#rank".
Result<std::vector<std::string>> agreeOnNames(Comm &comm, int world, const std::string &mine)
{
    auto gathered = gatherText(comm, world, mine);
    if (!gathered)
        return gathered.error();
    std::string joined;
    if (comm.worldRank() == 0) {
        std::map<std::string, int> uses;
        for (const std::string &n : *gathered)
            ++uses[n];
        for (std::size_t r = 0; r < gathered->size(); ++r) {
            const std::string &n = (*gathered)[r];
            joined += (uses[n] > 1 ? n + "#" + std::to_string(r) : n) + "\n";
        }
        for (int peer = 1; peer < world; ++peer)
            if (Status s = sendText(comm, peer, joined); !s)
                return s.error();
    } else {
        auto received = recvText(comm, 0);
        if (!received)
            return received.error();
        joined = std::move(*received);
    }
    std::vector<std::string> names;
    for (std::size_t start = 0; start < joined.size();) {
        const std::size_t end = joined.find('\n', start);
        names.push_back(joined.substr(start, end - start));
        start = end + 1;
    }
    return names;
}

// Rank 0's probe: every rank's host and pairs, in rank order, flags recomputed for the
// merged file's paths.
Result<Probe> merge(const std::vector<std::string> &texts)
{
    Probe merged;
    for (std::size_t r = 0; r < texts.size(); ++r) {
        auto part = parseProbe(texts[r], "the results of rank " + std::to_string(r));
        if (!part)
            return part.error();
        if (r == 0)
            merged.settings = part->settings;
        merged.hosts.insert(merged.hosts.end(), part->hosts.begin(), part->hosts.end());
        merged.pairs.insert(merged.pairs.end(), part->pairs.begin(), part->pairs.end());
    }
    addPlausibilityFlags(merged);
    return merged;
}

int runProbe(const ProbeArgs &args)
{
    const int rank = args.rank;
    const ModelSpec model = orDie(rank, loadModel(args.model));
    // A host of the emulated cluster computes at its speed (docs/emulated-cluster.md).
    runtime::setComputeSpeed(orDie(rank, runtime::readEmulatedSpeed()));
    // --scale is checked before anything is measured. The GEMMs take the layer's shapes as the
    // run at that scale makes them.
    const runtime::ModelConfig scaled
        = orDie(rank, runtime::scaledModelConfig(model, args.seqLen, args.scale));
    if (rank == 0 && !args.out.empty())
        if (Status s = checkWritable(args.out); !s)
            die(rank, Error{s.error().kind, "--out: " + s.error().message});
    const ModelSpec shaped = modelAsRun(model, scaled);
    const std::vector<GemmShape> shapes
        = layerGemmShapes(shaped, args.microBatch, scaled.seqLen, args.tp);
    std::string name = args.hostName.empty() ? thisHostName() : args.hostName;

    Probe local;
    local.settings
        = {model.name, args.microBatch, args.seqLen, args.tp, args.repetitions, args.quick};
    std::unique_ptr<Comm> comm;
    if (args.world > 1) {
        comm = orDie(rank, Comm::open(args.comm, rank, args.world));
        std::vector<int> everyone(std::size_t(args.world));
        for (int r = 0; r < args.world; ++r)
            everyone[std::size_t(r)] = r;
        if (Status s = comm->connect({{kProbeGroup, everyone}}); !s)
            die(rank, s.error());
        const std::vector<std::string> names = orDie(rank, agreeOnNames(*comm, args.world, name));
        name = names[std::size_t(rank)];
        local.pairs = orDie(rank, probeTcpPairs(*comm, rank, names, messageSizesBytes(args.quick),
                                                args.repetitions));
    }
    local.hosts.push_back(orDie(rank, measureHost(args, model, name, shapes, local.pairs)));
    addPlausibilityFlags(local);

    Probe probe = local;
    if (comm) {
        const auto texts = orDie(rank, gatherText(*comm, args.world, writeProbe(local)));
        if (rank != 0)
            return 0;
        probe = orDie(rank, merge(texts));
    }
    if (args.out.empty()) {
        std::cout << writeProbe(probe);
        return 0;
    }
    if (Status s = writeFileAtomic(args.out, writeProbe(probe)); !s)
        die(rank, Error{s.error().kind, "--out: " + s.error().message});
    printReport(std::cout, probe);
    std::cout << "wrote " << args.out << "\n";
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    try {
        auto args = parseProbeArgs(std::vector<std::string>(argv + 1, argv + argc));
        if (!args) {
            std::cerr << "hetplan-probe: " << args.error().message << "\n" << kProbeUsage;
            return 2;
        }
        if (args->help) {
            std::cout << kProbeUsage;
            return 0;
        }
        return runProbe(*args);
    } catch (const std::exception &e) {
        std::cerr << "hetplan-probe: internal error: " << e.what() << '\n';
    } catch (...) {
        std::cerr << "hetplan-probe: internal error: an unknown exception\n";
    }
    return 1;
}
