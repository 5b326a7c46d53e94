#include "runtime/model/reference_run.h"

#include "runtime/model/model_shard.h"

#include <algorithm>

namespace hetplan::runtime {

Result<ReferenceResult> referenceRun(const ModelConfig &config, const TrainingSetup &setup,
                                     int microBatch, int iterations)
{
    if (microBatch <= 0)
        return badInput("micro-batch " + std::to_string(microBatch)
                        + " must be a positive number of samples");
    if (iterations < 0)
        return badInput("iterations " + std::to_string(iterations) + " must not be negative");
    Result<ModelShard> created = ModelShard::create(config, wholeModel(config), setup);
    if (!created)
        return created.error();
    ModelShard &model = *created;
    SoloTpComm solo;

    ReferenceResult result;
    for (int it = 0; it < iterations; ++it) {
        double loss = 0;
        for (int first = 0; first < setup.globalBatch; first += microBatch) {
            const SampleSpan rows{first, std::min(microBatch, setup.globalBatch - first)};
            Result<ForwardOutput> out = model.forward(0, rows, {}, solo);
            if (!out)
                return out.error();
            loss += out->lossContribution;
            if (Result<std::vector<float>> back = model.backward(0, {}, solo); !back)
                return back.error();
        }
        model.optimizerStep();
        result.lossPerIteration.push_back(loss);
    }
    placeShard(result.finalWeights, model, ShardBuffer::Values);
    return result;
}

} // namespace hetplan::runtime
