#include "measurement_import.h"

#include "model/document.h"
#include "tasks/background_runner.h"

#include <QDialog>
#include <QFontDatabase>
#include <QPlainTextEdit>
#include <QVBoxLayout>
#include <QWidget>

namespace hetplan::gui {

MeasurementImport::MeasurementImport(Document *document, QWidget *parent)
    : QObject(parent)
    , m_document(document)
    , m_parent(parent)
    , m_runner(new BackgroundRunner(this))
{
    connect(m_runner, &BackgroundRunner::finished, this, &MeasurementImport::onFinished);
}

bool MeasurementImport::isRunning() const
{
    return m_runner->isRunning();
}

void MeasurementImport::importPaths(const QStringList &paths)
{
    if (m_runner->isRunning() || paths.isEmpty())
        return;
    std::vector<std::string> files;
    for (const QString &p : paths)
        files.push_back(p.toStdString());
    m_runner->start<Result<ImportResult>>(
        [files](QPromise<Result<ImportResult>> &promise, const std::stop_token &) {
            auto read = readImportFiles(files);
            if (!read) {
                promise.addResult(Result<ImportResult>(read.error()));
                return;
            }
            auto result = importMeasurements(read->inputs);
            if (result)
                for (const std::string &skipped : read->skipped)
                    result->notes.push_back(skipped + ": skipped: not a file HetPlan imports");
            promise.addResult(std::move(result));
        });
}

void MeasurementImport::onFinished()
{
    const QFuture<Result<ImportResult>> future = m_runner->future<Result<ImportResult>>();
    if (future.resultCount() == 0) {
        Q_EMIT finished(false);
        return;
    }
    const Result<ImportResult> &result = future.result();
    if (!result) {
        m_report = QString::fromStdString(result.error().message);
        showReport(tr("Import Measurements"), m_report);
        Q_EMIT finished(false);
        return;
    }
    if (Status s = m_document->newFromCluster(result->cluster); !s) {
        m_report = QString::fromStdString(s.error().message);
        showReport(tr("Import Measurements"), m_report);
        Q_EMIT finished(false);
        return;
    }
    m_report = QString::fromStdString(importReport(*result));
    showReport(tr("Import Report"), m_report);
    Q_EMIT finished(true);
}

void MeasurementImport::showReport(const QString &title, const QString &text)
{
    if (!m_reportView) {
        auto *dialog = new QDialog(m_parent);
        dialog->setObjectName(QStringLiteral("importReport"));
        dialog->resize(760, 520);
        auto *layout = new QVBoxLayout(dialog);
        m_reportView = new QPlainTextEdit(dialog);
        m_reportView->setReadOnly(true);
        m_reportView->setLineWrapMode(QPlainTextEdit::NoWrap);
        m_reportView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        layout->addWidget(m_reportView);
    }
    auto *dialog = static_cast<QDialog *>(m_reportView->parentWidget());
    dialog->setWindowTitle(title);
    m_reportView->setPlainText(text);
    dialog->show();
    dialog->raise();
}

} // namespace hetplan::gui
