#pragma once

#include <QDialog>

class QComboBox;
class QSpinBox;

namespace hetplan::gui {

// Preferences kept in QSettings: the language (applied at the next start) and how often
// unsaved work is autosaved.
class SettingsDialog : public QDialog
{
    Q_OBJECT

public:
    explicit SettingsDialog(QWidget *parent);

    static int autosaveIntervalS(); // 0: off
    void accept() override;

private:
    QComboBox *m_language;
    QSpinBox *m_autosave;
};

} // namespace hetplan::gui
