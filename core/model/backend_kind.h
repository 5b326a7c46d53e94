#pragma once

// The one owner of a backend's names. Each command line and file format keeps its own spelling
// of a backend; all of them live in kBackendNames, read and written only through the functions
// below.

#include "core/base/enum_names.h"
#include "core/base/result.h"
#include "core/model/workload.h"

#include <array>
#include <optional>
#include <string_view>

namespace hetplan {

// What a plan's ranks run on (docs/runtime.md, "Backends"), and what a probe measured.
enum class BackendKind {
    Gloo, // the CPU: the CPU model on host floats, Gloo over TCP
    Cuda, // NVIDIA GPUs: the GPU model on device memory, NCCL
};

// The element type a backend's ranks put on the wire (docs/cost-models.md, "Bytes on the
// wire"): TP partial sums, pipeline hops and data-parallel gradients all travel in it. The CPU
// backend is the fp32 reference; the GPU backend sends bf16, the precision of its GEMMs. The
// cost model predicting a run of `kind` charges bytesPerElement(wirePrecision(kind)), and the
// CUDA backend picks its NCCL element type from it.
constexpr Precision wirePrecision(BackendKind kind)
{
    return kind == BackendKind::Gloo ? Precision::Fp32 : Precision::Bf16;
}

// Where a backend's name is written.
enum class BackendSpelling {
    Option,      // --backend of hetplan-worker and of `hetplan-cli run`, `launch`, `export`
    Measurement, // hetplan.measurement/1, run.backend (docs/runtime.md, "The measurement file")
    Probe,       // hetplan.probe/1, hosts[].backend (docs/formats.md, "Probe")
};

struct BackendNames
{
    BackendKind kind;
    std::string_view option;
    std::string_view measurement;
    std::string_view probe;
    std::string_view runsOn; // for messages: "gloo (CPU)"

    constexpr std::string_view in(BackendSpelling spelling) const
    {
        switch (spelling) {
        case BackendSpelling::Option:
            return option;
        case BackendSpelling::Measurement:
            return measurement;
        case BackendSpelling::Probe:
            return probe;
        }
        return option;
    }
};

inline constexpr BackendNames kBackendNames[] = {
    {BackendKind::Gloo, "gloo", "gloo-cpu", "cpu", "CPU"},
    {BackendKind::Cuda, "cuda", "cuda-nccl", "cuda", "GPU with NCCL"},
};

// One spelling's names, in the table's order, for the readers that list what is valid.
constexpr std::array<EnumName<BackendKind>, std::size(kBackendNames)>
backendNames(BackendSpelling spelling)
{
    std::array<EnumName<BackendKind>, std::size(kBackendNames)> names{};
    for (std::size_t i = 0; i < names.size(); ++i)
        names[i] = {kBackendNames[i].in(spelling), kBackendNames[i].kind};
    return names;
}

// The writer: `kind` as `spelling` writes it.
constexpr std::string_view backendName(BackendKind kind, BackendSpelling spelling)
{
    for (const BackendNames &n : kBackendNames)
        if (n.kind == kind)
            return n.in(spelling);
    return kBackendNames[0].in(spelling); // unreachable for a complete table
}

// The reader: the backend `spelling` names `name`; nullopt for a name it does not have.
constexpr std::optional<BackendKind> backendNamed(std::string_view name, BackendSpelling spelling)
{
    for (const BackendNames &n : kBackendNames)
        if (n.in(spelling) == name)
            return n.kind;
    return std::nullopt;
}

// The value of a --backend option; the error names the option and what would be valid.
Result<BackendKind> backendOption(std::string_view text);

} // namespace hetplan
