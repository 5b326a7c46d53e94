#include "settings_dialog.h"

#include "translations.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

namespace hetplan::gui {

namespace {

const QString kAutosaveKey = QStringLiteral("document/autosaveIntervalS");
const QString kReplanKey = QStringLiteral("planning/replanAfterEdits");
constexpr int kDefaultAutosaveS = 60;

} // namespace

SettingsDialog::SettingsDialog(QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("Settings"));
    auto *layout = new QVBoxLayout(this);
    auto *form = new QFormLayout;

    m_language = new QComboBox(this);
    for (const auto &[setting, name] : availableLanguages())
        m_language->addItem(name, setting);
    m_language->setCurrentIndex(std::max(0, m_language->findData(languageSetting())));
    form->addRow(tr("&Language:"), m_language);
    auto *restart = new QLabel(tr("A new language applies the next time HetPlan starts."), this);
    restart->setWordWrap(true);
    restart->setForegroundRole(QPalette::PlaceholderText);
    form->addRow(QString(), restart);

    m_autosave = new QSpinBox(this);
    m_autosave->setRange(0, 3600);
    m_autosave->setSuffix(tr(" s"));
    m_autosave->setSpecialValueText(tr("off"));
    m_autosave->setValue(autosaveIntervalS());
    m_autosave->setToolTip(tr("How often unsaved changes are saved aside for crash recovery"));
    form->addRow(tr("&Autosave every:"), m_autosave);

    m_replan = new QCheckBox(tr("&Re-plan automatically after edits"), this);
    m_replan->setChecked(replanAfterEdits());
    m_replan->setToolTip(tr("Off: an edit marks the plan out of date until you press "
                            "Re-evaluate or Re-plan"));
    form->addRow(QString(), m_replan);
    layout->addLayout(form);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &SettingsDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &SettingsDialog::reject);
    layout->addWidget(buttons);
}

int SettingsDialog::autosaveIntervalS()
{
    return QSettings().value(kAutosaveKey, kDefaultAutosaveS).toInt();
}

bool SettingsDialog::replanAfterEdits()
{
    return QSettings().value(kReplanKey, false).toBool();
}

void SettingsDialog::accept()
{
    QSettings().setValue(kReplanKey, m_replan->isChecked());
    setLanguageSetting(m_language->currentData().toString());
    QSettings().setValue(kAutosaveKey, m_autosave->value());
    QDialog::accept();
}

} // namespace hetplan::gui
