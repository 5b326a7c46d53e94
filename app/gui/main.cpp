#include "base/version.h"
#include "canvas/cluster_scene.h"
#include "mainwindow.h"
#include "model/cluster_model.h"
#include "model/document.h"
#include "results/breakdown_chart.h"
#include "results/compare_view.h"
#include "results/convergence_chart.h"
#include "results/memory_chart.h"
#include "results/plan_view.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "results/serving_view.h"
#include "results/sweep_view.h"
#include "results/timeline_chart.h"
#include "results/whatif_panel.h"
#include "translations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QSlider>
#include <QTimer>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace {

using hetplan::gui::MainWindow;
using hetplan::gui::ResultsPanel;

// Time for the window to lay out and paint after a panel is raised.
constexpr int kSettleMs = 600;
// Longest wait for the start plan before the pictures are taken anyway.
constexpr int kPlanTimeoutMs = 300'000;

// Longest wait for background work a picture shows (a sweep, a comparison).
constexpr int kWorkTimeoutMs = 300'000;

// One picture: put the window in the state it shows, wait until `done` (background work it
// started) and then `settleMs`, grab it as `fileName`.
struct Shot
{
    QString fileName;
    std::function<void()> prepare;
    int settleMs = kSettleMs;
    std::function<bool()> done = [] { return true; };
    // False for a tab the shown plan's mode hides (Timeline for serving, Serving for training).
    std::function<bool()> wanted = [] { return true; };
};

std::vector<Shot> documentationShots(MainWindow &window)
{
    ResultsPanel *results = window.results();
    const auto serving = [results] {
        return results->shownPlan()
               && results->shownPlan()->plan.workload.mode == hetplan::Mode::Infer;
    };
    hetplan::gui::ClusterModel *model = window.document()->clusterModel();
    return {
        {QStringLiteral("designer.png"),
         [&window, model] {
             const auto machines = model->machineIds();
             if (!machines.empty())
                 window.scene()->setSelectedIds({machines.front()});
         }},
        {QStringLiteral("plan.png"),
         [&window, results] {
             window.scene()->setSelectedIds({});
             MainWindow::bringToFront(results->planView());
         }},
        {QStringLiteral("breakdown.png"),
         [results] { MainWindow::bringToFront(results->breakdownChart()); }},
        {QStringLiteral("timeline.png"),
         [results] { MainWindow::bringToFront(results->timelineChart()); }, kSettleMs,
         [] { return true; }, [serving] { return !serving(); }},
        // Half the Ethernet bandwidth: the current plan re-evaluated, then re-planned.
        {QStringLiteral("whatif.png"),
         [results] {
             MainWindow::bringToFront(results->planView());
             hetplan::gui::WhatIfPanel *whatIf = results->whatIfPanel();
             MainWindow::bringToFront(whatIf);
             const int network = whatIf->sliderFor({hetplan::BandwidthTarget::Kind::Network});
             if (network >= 0)
                 whatIf->slider(network)->setValue(-30); // 10^(-30/100) ≈ 0.5×
         },
         hetplan::gui::WhatIfPanel::kDebounceMs + 2 * kSettleMs},
        {QStringLiteral("memory.png"),
         [results] { MainWindow::bringToFront(results->memoryChart()); }},
        {QStringLiteral("convergence.png"),
         [results] { MainWindow::bringToFront(results->convergenceChart()); }},
        {QStringLiteral("serving.png"),
         [results] { MainWindow::bringToFront(results->servingView()); }, kSettleMs,
         [] { return true; }, serving},
        // A sweep of the first link class.
        {QStringLiteral("sweep.png"),
         [results] {
             MainWindow::bringToFront(results->sweepView());
             results->sweepView()->startSweep(0);
         },
         kSettleMs, [results] { return !results->sweepView()->isRunning(); }},
        {QStringLiteral("compare.png"),
         [results] {
             MainWindow::bringToFront(results->compareView());
             results->compareAll();
         },
         kSettleMs, [results] { return !results->controller()->isRunning(); }},
    };
}

// --screenshot DIR: waits for the start plan, then shows each part of the window in turn and
// saves it as DIR/<part>.png, and quits (exit status 1 when a picture could not be saved).
// The documentation's screenshots come from here (scripts/screenshot.sh).
void scheduleScreenshots(MainWindow &window, const QString &directory)
{
    QDir().mkpath(directory);
    auto shots = std::make_shared<std::vector<Shot>>(documentationShots(window));
    auto failed = std::make_shared<bool>(false);
    auto next = std::make_shared<std::function<void(size_t)>>();
    *next = [&window, directory, shots, failed, next](size_t index) {
        if (index == shots->size()) {
            QApplication::exit(*failed ? 1 : 0);
            return;
        }
        if (!(*shots)[index].wanted()) {
            (*next)(index + 1);
            return;
        }
        (*shots)[index].prepare();
        const auto grab = [&window, directory, shots, failed, next, index] {
            const QString path = QDir(directory).filePath((*shots)[index].fileName);
            if (!window.grab().save(path)) {
                qWarning("could not save %s", qPrintable(path));
                *failed = true;
            }
            (*next)(index + 1);
        };
        // Polled: the work a picture waits for has no one signal in common.
        auto waited = std::make_shared<QElapsedTimer>();
        waited->start();
        auto poll = std::make_shared<std::function<void()>>();
        *poll = [&window, shots, index, grab, waited, poll] {
            if ((*shots)[index].done() || waited->hasExpired(kWorkTimeoutMs)) {
                QTimer::singleShot((*shots)[index].settleMs, &window, grab);
                *poll = nullptr; // breaks the cycle of the lambda holding itself
                return;
            }
            QTimer::singleShot(200, &window, *poll);
        };
        QTimer::singleShot(0, &window, *poll);
    };
    auto started = std::make_shared<bool>(false);
    const auto start = [next, started] {
        if (!std::exchange(*started, true))
            (*next)(0);
    };
    hetplan::gui::PlanningController *controller = window.results()->controller();
    if (!controller->isRunning()) {
        QTimer::singleShot(kSettleMs, &window, start);
        return;
    }
    // Queued: the results panel shows the plan on `finished` first.
    QObject::connect(controller, &hetplan::gui::PlanningController::finished, &window, start,
                     Qt::QueuedConnection);
    QTimer::singleShot(kPlanTimeoutMs, &window, start);
}

// The --lang value, read before the parser exists so that its help text is translated too.
QString languageArgument(const QStringList &arguments)
{
    const QString option = QStringLiteral("--lang");
    for (qsizetype i = 1; i < arguments.size(); ++i) {
        if (arguments[i] == option && i + 1 < arguments.size())
            return arguments[i + 1];
        if (arguments[i].startsWith(option + QLatin1Char('=')))
            return arguments[i].mid(option.size() + 1);
    }
    return hetplan::gui::languageSetting();
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("HetPlan"));
    QApplication::setOrganizationName(QStringLiteral("HetPlan"));
    QApplication::setApplicationVersion(
        QString::fromUtf8(hetplan::kVersion.data(), qsizetype(hetplan::kVersion.size())));
    // The desktop entry's name without .desktop: Wayland compositors match windows by it.
    QApplication::setDesktopFileName(QStringLiteral("org.hetplan.HetPlan"));
    hetplan::gui::installTranslations(languageArgument(QApplication::arguments()));

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Designs heterogeneous GPU clusters and plans LLM training and serving on them."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QApplication::translate("main", "A project or cluster file."),
                                 QStringLiteral("[file]"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Plan the case study (or the file or example given), "
                                        "save pictures of the window's parts into "
                                        "<directory> and quit."),
        QStringLiteral("directory"));
    const QCommandLineOption language(
        QStringLiteral("lang"),
        QApplication::translate("main", "Use <language> (en, zh_CN) instead of the setting."),
        QStringLiteral("language"));
    const QCommandLineOption example(
        QStringLiteral("example"),
        QApplication::translate("main", "Open the bundled example <name> (e.g. large-cluster)."),
        QStringLiteral("name"));
    parser.addOption(screenshot);
    parser.addOption(language);
    parser.addOption(example);
    parser.process(app);

    MainWindow window;
    const QStringList files = parser.positionalArguments();
    bool opened = !files.isEmpty() && window.openFile(files.front());
    if (!opened && parser.isSet(example))
        opened = window.openExample(parser.value(example));
    if (opened || parser.isSet(screenshot)) {
        if (!opened)
            window.openExample(QStringLiteral("case-study")); // no recovery question in pictures
        window.planAtStart();
    } else {
        window.openStartDocument();
    }
    window.show();
    if (parser.isSet(screenshot))
        scheduleScreenshots(window, parser.value(screenshot));
    return QApplication::exec();
}
