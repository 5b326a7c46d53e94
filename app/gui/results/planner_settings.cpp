#include "results/planner_settings.h"

#include <QSettings>

namespace hetplan::gui {

namespace {

const QString kIterationsKey = QStringLiteral("planner/iterations");
const QString kSeedKey = QStringLiteral("planner/seed");
const QString kTimeLimitKey = QStringLiteral("planner/timeLimitS");

QString knobGroup(PlannerKind planner)
{
    return QStringLiteral("planner/knobs/") + QString::fromUtf8(plannerName(planner));
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
    options.knobs = knobs(planner);
    return options;
}

std::map<std::string, double> PlannerSettings::knobs(PlannerKind planner)
{
    QSettings settings;
    settings.beginGroup(knobGroup(planner));
    std::map<std::string, double> knobs;
    for (const QString &name : settings.childKeys()) {
        bool ok = false;
        const double value = settings.value(name).toDouble(&ok);
        if (ok)
            knobs[name.toStdString()] = value;
    }
    return knobs;
}

void PlannerSettings::setKnobs(PlannerKind planner, const std::map<std::string, double> &knobs)
{
    QSettings settings;
    settings.remove(knobGroup(planner));
    settings.beginGroup(knobGroup(planner));
    for (const auto &[name, value] : knobs)
        settings.setValue(QString::fromStdString(name), value);
}

} // namespace hetplan::gui
