#pragma once

#include "results/planning_controller.h"

#include <QAbstractTableModel>

#include <vector>

namespace hetplan::gui {

// Every planner of a "compare all" run, one row each (docs/architecture.md, "Conventions":
// item models): columns as an enum, SortRole hands numbers to the proxy, OutcomeRole the row's
// index into outcomes().
class CompareModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    // Interval: the 90 % interval of the iteration time, sorted by its 90th percentile
    // (docs/cost-models.md, "Prediction intervals"), marked where the plan extrapolates.
    enum Column {
        Planner,
        IterationTime,
        Interval,
        Mfu,
        TokensPerS,
        Pipelines,
        PlanningTime,
        ColumnCount
    };
    enum Role { SortRole = Qt::UserRole, OutcomeRole };

    explicit CompareModel(QObject *parent = nullptr);

    void clear();
    // Adds or replaces the row of one planner (rows stay in run order).
    void setOutcome(int index, const PlannerOutcome &outcome);
    const std::vector<PlannerOutcome> &outcomes() const { return m_outcomes; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // "no plan fits: …" and the like, for a planner that found nothing.
    static QString failureText(const Error &error);
    // Its first words ("no plan fits"), short enough for a table cell.
    static QString failureSummary(const Error &error);

private:
    static QVariant display(const PlannerOutcome &outcome, int column);
    static QVariant sortValue(const PlannerOutcome &outcome, int column);
    static QVariant toolTip(const PlannerOutcome &outcome, int column);

    std::vector<PlannerOutcome> m_outcomes;
};

} // namespace hetplan::gui
