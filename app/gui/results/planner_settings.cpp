#include "results/planner_settings.h"

#include "core/planners/planner_params.h"

#include <QSettings>

namespace hetplan::gui {

namespace {

const QString kIterationsKey = QStringLiteral("planner/iterations");
const QString kSeedKey = QStringLiteral("planner/seed");
const QString kTimeLimitKey = QStringLiteral("planner/timeLimitS");

QString parameterGroup(PlannerKind planner)
{
    return QStringLiteral("planner/parameters/") + QString::fromUtf8(plannerName(planner));
}

} // namespace

PlannerSettings PlannerSettings::load()
{
    const QSettings settings;
    PlannerSettings loaded;
    loaded.maxIterations = std::max(0, settings.value(kIterationsKey, 0).toInt());
    loaded.seed = settings.value(kSeedKey, 1).toULongLong();
    loaded.timeLimitS = std::max(0.0, settings.value(kTimeLimitKey, 0.0).toDouble());
    return loaded;
}

void PlannerSettings::save() const
{
    QSettings settings;
    settings.setValue(kIterationsKey, maxIterations);
    settings.setValue(kSeedKey, quint64(seed));
    settings.setValue(kTimeLimitKey, timeLimitS);
}

PlannerOptions PlannerSettings::options(PlannerKind planner) const
{
    PlannerOptions options;
    options.maxIterations = maxIterations;
    options.seed = seed;
    options.timeLimitS = timeLimitS;
    // Saved by the dialog within each parameter's range; one that no longer is (a range
    // narrowed since) keeps its default rather than failing the run.
    for (const auto &[name, value] : parameters(planner))
        (void)setPlannerParameter(options.parameters, planner, name, value);
    return options;
}

std::map<std::string, double> PlannerSettings::parameters(PlannerKind planner)
{
    QSettings settings;
    settings.beginGroup(parameterGroup(planner));
    std::map<std::string, double> values;
    for (const QString &name : settings.childKeys()) {
        bool ok = false;
        const double value = settings.value(name).toDouble(&ok);
        if (ok)
            values[name.toStdString()] = value;
    }
    return values;
}

void PlannerSettings::setParameters(PlannerKind planner,
                                    const std::map<std::string, double> &values)
{
    QSettings settings;
    settings.remove(parameterGroup(planner));
    settings.beginGroup(parameterGroup(planner));
    for (const auto &[name, value] : values)
        settings.setValue(QString::fromStdString(name), value);
}

} // namespace hetplan::gui
