#pragma once

#include "core/base/result.h"

#include <QWidget>

#include <optional>

class QLabel;
class QLineEdit;

namespace hetplan::gui {

// An inspector editor with a hint line under it that says why a value was refused. The
// value stays in the editor for the person to correct; the model keeps its old value.
class FieldRow : public QWidget
{
    Q_OBJECT

public:
    FieldRow(QWidget *editor, QWidget *parent);

    QWidget *editor() const { return m_editor; }
    QLabel *hint() const { return m_hint; }
    bool hasError() const;

    void showError(const QString &message);
    void clearError();
    // Shows the status's error, or clears the hint when it succeeded; returns status.ok().
    bool report(const Status &status);

protected:
    void changeEvent(QEvent *event) override;

private:
    void updateHintColor();

    QWidget *m_editor;
    QLabel *m_hint;
};

// Numbers as a person types them, in the user's locale or in C notation ("0.7" or "0,7").
std::optional<double> parseNumber(const QString &text);
std::optional<int> parseInteger(const QString &text);
QString formatNumber(double value);

// A line edit for FieldRow that commits on Enter or focus loss.
QLineEdit *makeLineEdit(const QString &objectName, QWidget *parent);

} // namespace hetplan::gui
