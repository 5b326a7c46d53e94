#include "results/planner_settings_dialog.h"

#include "core/planners/planner_params.h"
#include "results/planner_settings.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <cmath>
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
    addParameterRows();

    auto *buttons = new QDialogButtonBox(
        QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &PlannerSettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &PlannerSettingsDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this,
            &PlannerSettingsDialog::restoreDefaults);
    layout->addWidget(buttons);
}

void PlannerSettingsDialog::addParameterRows()
{
    const std::span<const ParameterSpec> specs = plannerParameters(m_planner);
    const QString name = QString::fromUtf8(plannerName(m_planner));
    auto *box = new QGroupBox(tr("%1's own parameters").arg(name), this);
    auto *form = new QFormLayout(box);
    if (specs.empty())
        form->addRow(new QLabel(tr("%1 has no parameters of its own.").arg(name), box));
    const std::map<std::string, double> saved = PlannerSettings::parameters(m_planner);
    for (const ParameterSpec &spec : specs) {
        QWidget *editor = nullptr;
        switch (spec.type) {
        case ParameterType::Switch:
            editor = new QCheckBox(box);
            break;
        case ParameterType::Integer: {
            auto *spin = new QSpinBox(box);
            // QSpinBox holds an int; the table's ranges may reach further.
            constexpr double kIntMax = std::numeric_limits<int>::max();
            spin->setRange(int(std::max(spec.min, -kIntMax)), int(std::min(spec.max, kIntMax)));
            editor = spin;
            break;
        }
        case ParameterType::Real: {
            auto *spin = new QDoubleSpinBox(box);
            spin->setDecimals(spec.max - spec.min > 1e6 ? 0 : 3);
            spin->setRange(spec.min, spec.max);
            editor = spin;
            break;
        }
        }
        const std::string key(spec.name);
        editor->setObjectName(QString::fromStdString(key));
        const auto value = saved.find(key);
        setEditorValue(editor, value != saved.end() ? value->second : spec.defaultValue);
        const QString doc = QString::fromUtf8(spec.doc.data(), qsizetype(spec.doc.size()));
        editor->setToolTip(tr("%1\nValid: %2; default %3")
                               .arg(doc, QString::fromStdString(parameterRangeText(spec)),
                                    QLocale().toString(spec.defaultValue, 'g', 6)));
        form->addRow(QString::fromStdString(key) + QLatin1Char(':'), editor);
        m_parameters.emplace_back(key, editor);
    }
    layout()->addWidget(box);
}

QWidget *PlannerSettingsDialog::parameterEditor(const QString &name) const
{
    for (const auto &[key, editor] : m_parameters)
        if (QString::fromStdString(key) == name)
            return editor;
    return nullptr;
}

double PlannerSettingsDialog::editorValue(const QWidget *editor)
{
    if (const auto *check = qobject_cast<const QCheckBox *>(editor))
        return check->isChecked() ? 1 : 0;
    if (const auto *spin = qobject_cast<const QSpinBox *>(editor))
        return spin->value();
    return qobject_cast<const QDoubleSpinBox *>(editor)->value();
}

void PlannerSettingsDialog::setEditorValue(QWidget *editor, double value)
{
    if (auto *check = qobject_cast<QCheckBox *>(editor))
        check->setChecked(value != 0);
    else if (auto *spin = qobject_cast<QSpinBox *>(editor))
        spin->setValue(int(std::lround(value)));
    else
        qobject_cast<QDoubleSpinBox *>(editor)->setValue(value);
}

void PlannerSettingsDialog::restoreDefaults()
{
    const std::span<const ParameterSpec> specs = plannerParameters(m_planner);
    for (const auto &[key, editor] : m_parameters)
        for (const ParameterSpec &spec : specs)
            if (spec.name == key)
                setEditorValue(editor, spec.defaultValue);
}

void PlannerSettingsDialog::accept()
{
    PlannerSettings settings;
    settings.maxIterations = m_iterations->value();
    settings.seed = std::uint64_t(m_seed->value());
    settings.timeLimitS = m_timeLimit->value();
    settings.save();
    // Only what differs from the default is kept, so a better default reaches the person.
    std::map<std::string, double> values;
    const std::span<const ParameterSpec> specs = plannerParameters(m_planner);
    for (const auto &[key, editor] : m_parameters)
        for (const ParameterSpec &spec : specs)
            if (spec.name == key && editorValue(editor) != spec.defaultValue)
                values[key] = editorValue(editor);
    PlannerSettings::setParameters(m_planner, values);
    QDialog::accept();
}

} // namespace hetplan::gui
