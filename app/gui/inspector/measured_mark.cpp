#include "inspector/measured_mark.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QStyle>

namespace hetplan::gui {
namespace {

const QString kMarkName = QStringLiteral("measuredMark");

} // namespace

QString MeasuredMark::note(const Cluster &cluster, const std::string &field)
{
    for (const MeasuredFigure &f : cluster.origin.figures)
        if (f.field == field)
            return f.how.empty()
                       ? tr("Measured: %1").arg(QString::fromStdString(f.source))
                       : tr("Measured: %1 — %2")
                             .arg(QString::fromStdString(f.source), QString::fromStdString(f.how));
    return {};
}

QString MeasuredMark::note(const Cluster &cluster, std::initializer_list<std::string> fields)
{
    for (const std::string &field : fields)
        if (QString text = note(cluster, field); !text.isEmpty())
            return text;
    return {};
}

void MeasuredMark::apply(QWidget *editor, const QString &note)
{
    editor->setToolTip(note);
    editor->setProperty("measured", !note.isEmpty());
    auto *edit = qobject_cast<QLineEdit *>(editor);
    if (!edit)
        return;
    QAction *mark = edit->findChild<QAction *>(kMarkName);
    if (note.isEmpty()) {
        delete mark;
        return;
    }
    if (!mark) {
        mark
            = edit->addAction(QApplication::style()->standardIcon(QStyle::SP_MessageBoxInformation),
                              QLineEdit::TrailingPosition);
        mark->setObjectName(kMarkName);
    }
    mark->setToolTip(note);
}

} // namespace hetplan::gui
