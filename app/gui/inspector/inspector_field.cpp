#include "inspector/inspector_field.h"

#include <QEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QVBoxLayout>

namespace hetplan::gui {

FieldRow::FieldRow(QWidget *editor, QWidget *parent)
    : QWidget(parent)
    , m_editor(editor)
    , m_hint(new QLabel(this))
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    editor->setParent(this);
    layout->addWidget(editor);
    m_hint->setObjectName(editor->objectName() + QStringLiteral("Hint"));
    m_hint->setWordWrap(true);
    m_hint->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_hint->hide();
    layout->addWidget(m_hint);
    updateHintColor();
}

bool FieldRow::hasError() const
{
    return !m_hint->isHidden();
}

void FieldRow::showError(const QString &message)
{
    m_hint->setText(message);
    m_hint->show();
    m_editor->setToolTip(message);
}

void FieldRow::clearError()
{
    m_hint->clear();
    m_hint->hide();
    m_editor->setToolTip({});
}

bool FieldRow::report(const Status &status)
{
    if (status)
        clearError();
    else
        showError(QString::fromStdString(status.error().message));
    return status.ok();
}

void FieldRow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        updateHintColor();
    QWidget::changeEvent(event);
}

// A red that reads on the theme's background: darker on light themes, lighter on dark ones.
void FieldRow::updateHintColor()
{
    const bool dark = palette().color(QPalette::Window).lightness() < 128;
    QPalette p = m_hint->palette();
    p.setColor(QPalette::WindowText, dark ? QColor(0xff, 0x7b, 0x72) : QColor(0xc6, 0x28, 0x28));
    m_hint->setPalette(p);
}

std::optional<double> parseNumber(const QString &text)
{
    const QString trimmed = text.trimmed();
    bool ok = false;
    double value = QLocale().toDouble(trimmed, &ok);
    if (!ok)
        value = QLocale::c().toDouble(trimmed, &ok);
    if (!ok)
        return std::nullopt;
    return value;
}

std::optional<int> parseInteger(const QString &text)
{
    bool ok = false;
    const int value = QLocale().toInt(text.trimmed(), &ok);
    if (!ok)
        return std::nullopt;
    return value;
}

QString formatNumber(double value)
{
    return QLocale().toString(value, 'g', 6);
}

QLineEdit *makeLineEdit(const QString &objectName, QWidget *parent)
{
    auto *edit = new QLineEdit(parent);
    edit->setObjectName(objectName);
    edit->setClearButtonEnabled(false);
    return edit;
}

} // namespace hetplan::gui
