// hetplan-cli calibrate --design: the plans of a calibration job (docs/calibration.md,
// "Designing the runs").
#include "app/cli/commands.h"
#include "app/cli/output.h"
#include "app/cli/setup.h"
#include "core/calibrate/calibration_design.h"
#include "core/io/files.h"
#include "core/io/formats.h"

#include <filesystem>
#include <iostream>

namespace hetplan::cli {

int runCalibrateDesign(const std::vector<std::string> &words)
{
    Args::Spec spec{problemOptions(), {"design"}};
    spec.options.insert("out");
    auto args = Args::parse(words, spec);
    if (!args)
        return fail(args.error());
    if (Status none = args->noPositional(spec); !none)
        return fail(none.error());
    const auto out = args->value("out");
    if (!out || out->empty())
        return fail(badInput("--out DIR is required: the folder the design's plans are "
                             "written to (created if missing)"));
    auto problem = buildProblem(*args);
    if (!problem)
        return fail(problem.error());
    auto design = designCalibration(problem->topology, problem->model, problem->workload);
    if (!design)
        return fail(design.error());

    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(*out, ec);
    if (ec || !fs::is_directory(*out))
        return fail(badInput("--out " + *out + ": cannot make the folder ("
                             + (ec ? ec.message() : std::string("not a folder")) + ")"));
    std::cout << "Calibration design for " << problem->model.name << " on "
              << problem->topology.cluster().name << ": " << design->size() << " runs\n";
    for (const DesignedRun &run : *design) {
        const std::string path = (fs::path(*out) / (run.name + ".plan.json")).string();
        if (Status written = writeFileAtomic(path, writePlan(run.plan, problem->topology));
            !written)
            return fail(written.error());
        std::cout << "  " << path << "\n      " << run.exercises << '\n';
    }
    std::cout << "Launch each (hetplan-cli launch --plan P --out M ...), then fit them "
                 "together:\n  hetplan-cli calibrate --cluster C --measured M1 --measured M2 "
                 "... --plan P1,P2,... --out CALIBRATED\n";
    return 0;
}

} // namespace hetplan::cli
