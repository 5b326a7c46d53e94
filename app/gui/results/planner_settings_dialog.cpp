#include "results/planner_settings_dialog.h"

#include "results/planner_settings.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSpinBox>
#include <QVBoxLayout>

#include <limits>

namespace hetplan::gui {

namespace {

constexpr int kMaxIterations = 1'000'000;
constexpr double kMaxTimeLimitS = 24 * 3600;

} // namespace

PlannerSettingsDialog::PlannerSettingsDialog(PlannerKind planner, QWidget *parent)
    : QDialog(parent)
    , m_planner(planner)
{
    setObjectName(QStringLiteral("plannerSettingsDialog"));
    setWindowTitle(tr("Planner Settings"));
    const PlannerSettings settings = PlannerSettings::load();
    auto *layout = new QVBoxLayout(this);

    auto *common = new QGroupBox(tr("Every planner"), this);
    auto *form = new QFormLayout(common);
    m_iterations = new QSpinBox(common);
    m_iterations->setRange(0, kMaxIterations);
    m_iterations->setSpecialValueText(tr("planner's default"));
    m_iterations->setValue(settings.maxIterations);
    m_iterations->setToolTip(tr("How many search steps a planner takes at most"));
    form->addRow(tr("&Iterations:"), m_iterations);
    m_seed = new QSpinBox(common);
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(int(std::min<std::uint64_t>(settings.seed, m_seed->maximum())));
    m_seed->setToolTip(tr("The same seed gives the same plan for the same cluster and workload"));
    form->addRow(tr("&Seed:"), m_seed);
    m_timeLimit = new QDoubleSpinBox(common);
    m_timeLimit->setRange(0, kMaxTimeLimitS);
    m_timeLimit->setDecimals(1);
    m_timeLimit->setSuffix(tr(" s"));
    m_timeLimit->setSpecialValueText(tr("none"));
    m_timeLimit->setValue(settings.timeLimitS);
    m_timeLimit->setToolTip(
        tr("A planner still searching after this time stops and returns its best plan so far"));
    form->addRow(tr("&Time limit:"), m_timeLimit);
    layout->addWidget(common);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &PlannerSettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &PlannerSettingsDialog::reject);
    layout->addWidget(buttons);
}

void PlannerSettingsDialog::accept()
{
    PlannerSettings settings;
    settings.maxIterations = m_iterations->value();
    settings.seed = std::uint64_t(m_seed->value());
    settings.timeLimitS = m_timeLimit->value();
    settings.save();
    QDialog::accept();
}

} // namespace hetplan::gui
