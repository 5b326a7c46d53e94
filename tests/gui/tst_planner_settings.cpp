// Plan ▸ Planner Settings in the real window: what the person sets is what the next Plan runs.
#include "core/planners/planner_params.h"
#include "mainwindow.h"
#include "results/planner_settings.h"
#include "results/planner_settings_dialog.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "tests/test_registry.h"

#include <QAction>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTimer>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

// Opens the dialog through the Plan menu's action, lets `edit` change it, then presses OK.
void editSettings(MainWindow &window, const std::function<void(PlannerSettingsDialog *)> &edit)
{
    bool seen = false;
    QTimer::singleShot(0, [&] {
        auto *dialog = qobject_cast<PlannerSettingsDialog *>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        seen = true;
        edit(dialog);
        dialog->accept();
    });
    window.results()->plannerSettingsAction()->trigger();
    QVERIFY(seen);
}

} // namespace

class TestPlannerSettings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void nextPlanRunsWithTheSettings();
    void settingsAreKeptForTheNextDialog();
    void plannerParametersComeFromItsTable();
};

void TestPlannerSettings::init()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestPlannerSettings::nextPlanRunsWithTheSettings()
{
    MainWindow window;
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    editSettings(window, [](PlannerSettingsDialog *dialog) {
        dialog->iterationsBox()->setValue(3);
        dialog->seedBox()->setValue(7);
        dialog->timeLimitBox()->setValue(5);
    });
    PlanningController *controller = window.results()->controller();
    QSignalSpy finished(controller, &PlanningController::finished);
    window.results()->plan();
    QVERIFY(finished.wait(60000));
    const PlanRequest *request = controller->request();
    QVERIFY(request);
    const PlannerOptions &options = request->optionsFor(request->planners.front());
    QCOMPARE(options.maxIterations, 3);
    QCOMPARE(options.seed, std::uint64_t(7));
    QCOMPARE(options.timeLimitS, 5.0);
    QVERIFY(window.results()->shownPlan());
}

void TestPlannerSettings::settingsAreKeptForTheNextDialog()
{
    MainWindow window;
    editSettings(window, [](PlannerSettingsDialog *dialog) {
        QCOMPARE(dialog->iterationsBox()->value(), 0); // the planner's default
        dialog->iterationsBox()->setValue(12);
        dialog->timeLimitBox()->setValue(2.5);
    });
    editSettings(window, [](PlannerSettingsDialog *dialog) {
        QCOMPARE(dialog->iterationsBox()->value(), 12);
        QCOMPARE(dialog->timeLimitBox()->value(), 2.5);
    });
    QCOMPARE(PlannerSettings::load().maxIterations, 12);
}

void TestPlannerSettings::plannerParametersComeFromItsTable()
{
    MainWindow window;
    QVERIFY(window.openExample(QStringLiteral("case-study")));
    const PlannerKind kind = PlannerKind::HexiScale; // the case study's planner
    const std::span<const ParameterSpec> specs = plannerParameters(kind);
    QVERIFY(!specs.empty());
    // One editor per entry of the table, and an integer set to a value other than its default.
    const ParameterSpec *changed = nullptr;
    double value = 0;
    editSettings(window, [&](PlannerSettingsDialog *dialog) {
        for (const ParameterSpec &spec : specs) {
            QWidget *editor = dialog->parameterEditor(
                QString::fromUtf8(spec.name.data(), qsizetype(spec.name.size())));
            QVERIFY2(editor, spec.name.data());
            QVERIFY(!editor->toolTip().isEmpty());
            if (auto *spin = qobject_cast<QSpinBox *>(editor); spin && !changed) {
                QCOMPARE(spin->value(), int(spec.defaultValue));
                value = spec.defaultValue + 1 <= spec.max ? spec.defaultValue + 1
                                                          : spec.defaultValue - 1;
                spin->setValue(int(value));
                changed = &spec;
            }
        }
    });
    QVERIFY(changed);
    PlanningController *controller = window.results()->controller();
    QSignalSpy finished(controller, &PlanningController::finished);
    window.results()->plan();
    QVERIFY(finished.wait(60000));
    const Result<double> used
        = plannerParameter(controller->request()->optionsFor(kind).parameters, kind, changed->name);
    QVERIFY(used.ok());
    QCOMPARE(*used, value);

    // Restore Defaults puts it back.
    editSettings(window, [&](PlannerSettingsDialog *dialog) {
        dialog->restoreDefaults();
        auto *spin = qobject_cast<QSpinBox *>(dialog->parameterEditor(
            QString::fromUtf8(changed->name.data(), qsizetype(changed->name.size()))));
        QCOMPARE(spin->value(), int(changed->defaultValue));
    });
    QVERIFY(PlannerSettings::parameters(kind).empty());
}

HETPLAN_TEST_MAIN(TestPlannerSettings)
#include "tst_planner_settings.moc"
