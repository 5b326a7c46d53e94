#pragma once

#include "core/io/probe_file.h"
#include "runtime/probe/probe_args.h"
#include "runtime/probe/probe_shapes.h"

#include <string>
#include <vector>

namespace hetplan::runtime::probe {

// This host's figures: CPU GEMM, memory and `model`'s layer (layer_probe.h) always, the layer
// only where no GPU is probed; every GPU, every GPU pair and the
// `nvidia-smi topo -m` links where the probe was built with CUDA, a device is usable and
// --no-gpu was not given. GPU pairs go to `pairs`.
Result<ProbedHost> measureHost(const ProbeArgs &args, const ModelSpec &model,
                               const std::string &name, const std::vector<GemmShape> &shapes,
                               std::vector<ProbedPair> &pairs);

// `nvidia-smi topo -m` parsed into links; empty when nvidia-smi is absent or fails. A matrix
// that cannot be parsed is reported on standard error and left out, never guessed.
std::vector<TopoLink> nvidiaTopology();

// Why this probe measures no GPU ("built without CUDA", the driver's reason); empty when it does.
std::string whyNoGpu(const ProbeArgs &args);

} // namespace hetplan::runtime::probe
