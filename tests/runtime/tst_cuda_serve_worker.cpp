// hetplan-worker's serving rank on --backend cuda (runtime/worker/serve_worker.cpp,
// gpu_rank.cpp) on the host emulation of CUDA, cuBLAS and NCCL (cuda-model-emulated): the rank
// connects Gloo, opens its GPU backend and NCCL, builds its GPU serving shard, serves its warm-up
// and then the request stream, and writes every request's record, completed with all its
// tokens. What it checks is the wiring; the shard's numbers are tst_cuda_serve's.
#include "cuda_emulation_log.h"
#include "runtime/serve/served_records.h"
#include "runtime/worker/job.h"
#include "runtime/worker/serve_worker.h"
#include "tests/test_registry.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>

using namespace hetplan;
using namespace hetplan::runtime;

class TestCudaServeWorker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneRankServesOnTheGpu()
    {
        QTemporaryDir dir;
        const std::string folder = dir.path().toStdString();
        const std::string plan = folder + "/serve.plan.json";
        std::ofstream(plan)
            << R"({"format": "hetplan.plan/1", "planner": "hand", "cost_model": "hetplan",
 "cluster": "case-study", "model": "runtime-tiny",
 "workload": {"mode": "infer", "prompt_len": 6, "output_len": 4, "request_rate": 50,
              "batch": 2, "precision": "fp32"},
 "pipelines": [{"micro_batch": 2, "micro_batches": 1,
   "stages": [{"gpus": ["A:0"], "layers": [0, 4]}]}]})";
        const std::string out = folder + "/served.json";
        auto args = parseWorkerArgs(
            {"--plan",       plan,
             "--model",      HETPLAN_SOURCE_DIR "/tests/runtime/data/tiny.model.json",
             "--rank",       "0",
             "--world",      "1",
             "--rendezvous", folder,
             "--backend",    "cuda",
             "--device",     "0",
             "--requests",   "5",
             "--seed",       "3",
             "--timeout-s",  "20",
             "--out",        out});
        QVERIFY2(args, args ? "" : args.error().message.c_str());
        auto job = loadJob(jobSource(*args));
        QVERIFY2(job, job ? "" : job.error().message.c_str());
        namespace emulation = cuda::emulation;
        emulation::log().clear();
        const Status served = serveJobRank(*args, *job, {});
        QVERIFY2(served, served ? "" : served.error().message.c_str());
        auto records = readServedRecords(out);
        QVERIFY2(records, records ? "" : records.error().message.c_str());
        QCOMPARE(records->size(), std::size_t(5));
        for (const ServedRequest &r : *records) {
            QVERIFY2(r.completed, r.failure.c_str());
            QCOMPARE(r.outputTokens, 4);
        }
        // On the GPU shard: its attention against the KV cache ran (the CPU shard has none).
        QVERIFY(std::any_of(emulation::log().begin(), emulation::log().end(),
                            [](const emulation::Entry &e) { return e.name == "decodeAttention"; }));
    }
};

HETPLAN_TEST_APPLESS_MAIN(TestCudaServeWorker)
#include "tst_cuda_serve_worker.moc"
