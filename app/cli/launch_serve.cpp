#include "app/cli/launch_serve.h"

#include "app/cli/launch_output.h"
#include "app/cli/served_print.h"
#include "app/cli/setup.h"
#include "app/cli/signals.h"
#include "core/io/files.h"

#include <atomic>
#include <filesystem>
#include <iostream>
#include <stop_token>

namespace hetplan::cli {

namespace fs = std::filesystem;

int launchFailed(Error error, const LaunchSpec &launch)
{
    if (error.message.find("is not in") != std::string::npos && !launch.acceptNewHostKeys)
        error.message += "\nTo trust it, add the key to the known-hosts file (ssh to the "
                         "host once) or pass --accept-new-host-keys.";
    const int code = fail(error);
    return receivedSignal() != 0 ? signalExitCode() : code;
}

int launchServing(const Args &args, LaunchSpec launch, const runtime::Job &job)
{
    // Checked now, not after the job: a run is never lost to a bad --out.
    const std::optional<std::string> out = args.value("out");
    if (std::error_code ec; out && fs::exists(*out, ec) && !fs::is_directory(*out, ec))
        return fail(badInput("--out " + *out
                             + " is a file; a serving launch writes serving-measurement.json "
                               "into a directory"));
    auto options = serveOptions(args, launch.seed);
    if (!options)
        return fail(options.error());
    const runtime::RequestStreamOptions &stream = options->stream;
    auto setup = serveSetup(job, launch.planName, stream, launch.scale);
    if (!setup)
        return fail(setup.error());
    launch.serving = {stream.requests, stream.durationS, stream.rate, {}, options->temperature};
    if (!stream.trace.empty()) {
        auto text = readTextFile(stream.trace);
        if (!text)
            return fail(text.error());
        launch.serving.traceText = std::move(text).value();
    }

    std::cout << "hetplan-cli launch: " << setup->stream.size() << " requests on "
              << job.plan.pipelines.size() << " replicas, model " << job.scaled.name << " at scale "
              << job.scaled.scale << std::endl;
    LaunchOutput output(std::cout, std::cerr);
    std::atomic<bool> ranksStarted{false};
    const LaunchSink sink = [&](const LaunchEvent &event) {
        if (event.kind == LaunchEvent::Kind::Phase && event.phase == JobPhase::Running)
            ranksStarted = true;
        output(event);
    };
    LaunchJob launchJob;
    // A signal now cancels the job, which stops every replica on every host.
    const StoppableScope stoppable;
    const std::stop_callback onSignal(stopToken(), [&launchJob] { launchJob.cancel(); });
    ReplicaRecords texts;
    const Status served = launchJob.serve(launch, sink, texts);
    output.flush();
    if (!served && !ranksStarted)
        return launchFailed(served.error(), launch);

    auto records = runtime::replicaRecords(texts);
    if (!records)
        return fail(records.error());
    const int code = finishServed(job, launch.planName, *setup, std::move(records).value(),
                                  served ? std::string() : served.error().message, out,
                                  runtime::jobHosts(job, launch.hosts));
    return receivedSignal() != 0 ? signalExitCode() : code;
}

} // namespace hetplan::cli
