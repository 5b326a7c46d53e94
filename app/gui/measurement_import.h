#pragma once

#include "core/import/import.h"

#include <QObject>
#include <QString>
#include <QStringList>

class QPlainTextEdit;
class QWidget;

namespace hetplan::gui {

class BackgroundRunner;
class Document;

// File › Import Measurements (docs/import.md): reads the chosen files and folders and builds
// the cluster off the GUI thread, then opens it as a new unsaved document laid out by the
// canvas's auto-layout, and shows the report of where every figure came from.
class MeasurementImport : public QObject
{
    Q_OBJECT

public:
    // The import opens its cluster in `document`; its report is a window of `parent`'s.
    MeasurementImport(Document *document, QWidget *parent);

    // Starts importing `paths` (files or folders); finished() follows. The caller has asked
    // about unsaved work: the import replaces the document.
    void importPaths(const QStringList &paths);
    bool isRunning() const;
    // The last import's report, or why it was refused.
    QString lastReport() const { return m_report; }
    QPlainTextEdit *reportView() const { return m_reportView; }

Q_SIGNALS:
    void finished(bool ok);

private:
    void onFinished();
    void showReport(const QString &title, const QString &text);

    Document *m_document;
    QWidget *m_parent;
    BackgroundRunner *m_runner;
    QString m_report;
    QPlainTextEdit *m_reportView = nullptr; // in a window of its own, created on first use
};

} // namespace hetplan::gui
