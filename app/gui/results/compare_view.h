#pragma once

#include <QWidget>

class QCPBars;
class QCustomPlot;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace hetplan::gui {

class CompareModel;

// The planners side by side: a sortable table with a details line below it, and beside them
// grouped bars (iteration time, MFU) per planner. Choosing a row asks for that planner's plan
// to be shown and puts its full outcome in the details.
class CompareView : public QWidget
{
    Q_OBJECT

public:
    explicit CompareView(CompareModel *model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QCustomPlot *plot() const { return m_plot; }
    // The chosen planner's full outcome: its error message in full, when it found nothing.
    QLabel *details() const { return m_details; }

Q_SIGNALS:
    void outcomeChosen(int index); // into CompareModel::outcomes()

private:
    void updateBars();
    void showDetails(int index);

    CompareModel *m_model; // Not owned.
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QLabel *m_details = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_timeBars = nullptr;
    QCPBars *m_mfuBars = nullptr;
};

} // namespace hetplan::gui
