#pragma once

#include <QWidget>

class QCPBars;
class QCustomPlot;
class QSortFilterProxyModel;
class QTableView;

namespace hetplan::gui {

class CompareModel;

// The planners side by side: a sortable table and grouped bars (iteration time, MFU) per
// planner. Choosing a row asks for that planner's plan to be shown.
class CompareView : public QWidget
{
    Q_OBJECT

public:
    explicit CompareView(CompareModel *model, QWidget *parent = nullptr);

    QTableView *table() const { return m_table; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QCustomPlot *plot() const { return m_plot; }

Q_SIGNALS:
    void outcomeChosen(int index); // into CompareModel::outcomes()

private:
    void updateBars();

    CompareModel *m_model; // Not owned.
    QSortFilterProxyModel *m_proxy = nullptr;
    QTableView *m_table = nullptr;
    QCustomPlot *m_plot = nullptr;
    QCPBars *m_timeBars = nullptr;
    QCPBars *m_mfuBars = nullptr;
};

} // namespace hetplan::gui
