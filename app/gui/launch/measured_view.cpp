#include "launch/measured_view.h"

#include "results/results_text.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace hetplan::gui {

MeasuredView::MeasuredView(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    m_summary->setObjectName(QStringLiteral("measuredSummary"));
    m_summary->setWordWrap(true);
    m_table->setObjectName(QStringLiteral("measuredTable"));
    m_table->setHorizontalHeaderLabels({tr("What"), tr("Predicted"), tr("Measured"), tr("Error")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    clear();
}

void MeasuredView::clear()
{
    m_summary->setText(tr("No run measured yet: Tools › Launch runs the shown plan and shows its "
                          "measured times here."));
    m_table->setRowCount(0);
}

void MeasuredView::showRun(const Measurement &measured, const std::vector<Comparison> &rows)
{
    QString summary = tr("Measured on %n host(s) (%1, scale %2, %3 iterations): %4 per iteration.",
                         nullptr, int(measured.run.hosts.size()))
                          .arg(QString::fromStdString(std::string(
                              backendName(measured.run.backend, BackendSpelling::Measurement))))
                          .arg(measured.run.scale)
                          .arg(measured.run.iterations)
                          .arg(ResultsText::duration(measured.iterationS));
    // The same caution the CLI prints: the prediction is for the cluster's GPUs and the full
    // model, not for CPU ranks or a scaled-down model.
    if (measured.run.scale != 1 || measured.run.backend == BackendKind::Gloo)
        summary += QLatin1Char(' ')
                   + tr("The run used CPU ranks or a scaled-down model, so the errors mean little "
                        "unless the cluster describes what ran.");
    m_summary->setText(summary);
    m_table->setRowCount(int(rows.size()));
    for (int row = 0; row < int(rows.size()); ++row) {
        const Comparison &c = rows[std::size_t(row)];
        const double error = c.relativeError();
        const QString cells[ColumnCount]
            = {QString::fromStdString(labelOf(c.key)), ResultsText::duration(c.predicted),
               ResultsText::duration(c.measured),
               std::isfinite(error)
                   ? QStringLiteral("%1%2 %").arg(error > 0 ? QStringLiteral("+") : QString(),
                                                  QLocale().toString(error * 100, 'f', 0))
                   : QStringLiteral("–")};
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            if (column != What)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, column, item);
        }
    }
}

} // namespace hetplan::gui
