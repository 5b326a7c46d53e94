#pragma once

#include <QDialog>

class QCheckBox;
class QComboBox;
class QSpinBox;

namespace hetplan::gui {

// Preferences kept in QSettings: the language (applied at the next start), how often
// unsaved work is autosaved, and whether an edit re-plans by itself.
class SettingsDialog : public QDialog
{
    Q_OBJECT

public:
    explicit SettingsDialog(QWidget *parent);

    static int autosaveIntervalS(); // 0: off
    static bool replanAfterEdits(); // default off: edits mark the plan out of date
    void accept() override;

private:
    QComboBox *m_language;
    QSpinBox *m_autosave;
    QCheckBox *m_replan;
};

} // namespace hetplan::gui
