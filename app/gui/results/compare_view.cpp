#include "results/compare_view.h"

#include "results/chart_support.h"
#include "results/compare_model.h"
#include "results/qcustomplot_include.h"
#include "results/results_text.h"

#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace hetplan::gui {

CompareView::CompareView(CompareModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(model);
    m_proxy->setSortRole(CompareModel::SortRole);

    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CompareModel::IterationTime, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_details = new QLabel;
    m_details->setObjectName(QStringLiteral("compareDetails"));
    m_details->setWordWrap(true);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_details->setText(tr("Choose a planner to see its plan and details."));

    m_plot = new QCustomPlot;
    setUpChart(m_plot, tr("Planners compared"));
    auto *group = new QCPBarsGroup(m_plot);
    m_timeBars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_timeBars->setName(tr("Iteration time (s)"));
    m_timeBars->setBrush(QColor(0x4c, 0x72, 0xb0));
    m_mfuBars = new QCPBars(m_plot->xAxis, m_plot->yAxis2);
    m_mfuBars->setName(tr("MFU (%)"));
    m_mfuBars->setBrush(QColor(0xdd, 0x84, 0x52));
    for (QCPBars *bars : {m_timeBars, m_mfuBars}) {
        bars->setWidth(0.35);
        bars->setPen(Qt::NoPen);
        bars->setBarsGroup(group);
    }
    m_plot->yAxis->setLabel(tr("iteration time (s)"));
    m_plot->yAxis2->setVisible(true);
    m_plot->yAxis2->setLabel(tr("MFU (%)"));

    // Side by side: the dock below the canvas is wide and low, so stacked, the chart would
    // leave the table room for two rows.
    auto *tableSide = new QWidget;
    auto *tableLayout = new QVBoxLayout(tableSide);
    tableLayout->setContentsMargins(0, 0, 0, 0);
    tableLayout->addWidget(m_table, 1);
    tableLayout->addWidget(m_details);
    auto *splitter = new QSplitter(Qt::Horizontal);
    splitter->addWidget(tableSide);
    splitter->addWidget(m_plot);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (!current.isValid())
                    return;
                const int index = current.data(CompareModel::OutcomeRole).toInt();
                showDetails(index);
                Q_EMIT outcomeChosen(index);
            });
    connect(model, &QAbstractItemModel::modelReset, this, &CompareView::updateBars);
    connect(model, &QAbstractItemModel::rowsInserted, this, &CompareView::updateBars);
    connect(model, &QAbstractItemModel::dataChanged, this, &CompareView::updateBars);
    updateBars();
}

void CompareView::showDetails(int index)
{
    const std::vector<PlannerOutcome> &outcomes = m_model->outcomes();
    if (index < 0 || index >= int(outcomes.size()))
        return;
    const PlannerOutcome &outcome = outcomes[size_t(index)];
    const QString name = QString::fromUtf8(plannerName(outcome.planner));
    if (outcome.error) {
        m_details->setText(tr("%1: %2").arg(name, CompareModel::failureText(*outcome.error)));
        return;
    }
    const Evaluation &e = outcome.search->evaluation;
    m_details->setText(tr("%1: %2 per iteration, MFU %3, planned in %4")
                           .arg(name, ResultsText::duration(e.iterationS),
                                ResultsText::percent(e.mfu),
                                ResultsText::duration(outcome.search->planningS)));
}

void CompareView::updateBars()
{
    QStringList labels;
    QVector<double> keys;
    QVector<double> times;
    QVector<double> mfus;
    double slowest = 0;
    for (const PlannerOutcome &outcome : m_model->outcomes()) {
        keys << double(labels.size());
        labels << QString::fromUtf8(plannerName(outcome.planner));
        // A planner without a plan keeps its place on the axis, with no bars.
        const bool ok = outcome.search.has_value();
        times << (ok ? outcome.search->evaluation.iterationS : 0.0);
        mfus << (ok ? 100 * outcome.search->evaluation.mfu : 0.0);
        if (ok)
            slowest = std::max(slowest, outcome.search->evaluation.iterationS);
    }
    m_timeBars->setData(keys, times, true);
    m_mfuBars->setData(keys, mfus, true);
    setCategoryAxis(m_plot->xAxis, labels);
    m_plot->yAxis->setRange(0, slowest > 0 ? slowest * 1.1 : 1);
    double best = 0;
    for (double m : mfus)
        best = std::max(best, m);
    m_plot->yAxis2->setRange(0, best > 0 ? best * 1.1 : 1);
    setChartPlaceholder(m_plot, labels.isEmpty() ? tr("Press Compare all") : QString());
    m_plot->replot();
}

} // namespace hetplan::gui
