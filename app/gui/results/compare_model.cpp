#include "results/compare_model.h"

#include "core/cost/prediction_interval.h"
#include "results/results_text.h"

#include <QApplication>
#include <QBrush>
#include <QLocale>
#include <QStyle>

#include <limits>

namespace hetplan::gui {

CompareModel::CompareModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void CompareModel::clear()
{
    beginResetModel();
    m_outcomes.clear();
    endResetModel();
}

void CompareModel::setOutcome(int index, const PlannerOutcome &outcome)
{
    if (index < int(m_outcomes.size())) {
        m_outcomes[size_t(index)] = outcome;
        Q_EMIT dataChanged(this->index(index, 0), this->index(index, ColumnCount - 1));
        return;
    }
    beginInsertRows({}, int(m_outcomes.size()), index);
    m_outcomes.resize(size_t(index) + 1);
    m_outcomes[size_t(index)] = outcome;
    endInsertRows();
}

int CompareModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_outcomes.size());
}

int CompareModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CompareModel::failureSummary(const Error &error)
{
    switch (error.kind) {
    case ErrorKind::NoPlanFits:
        return tr("no plan fits");
    case ErrorKind::Cancelled:
        return tr("cancelled");
    case ErrorKind::Unsupported:
        return tr("not available");
    case ErrorKind::BadInput:
    case ErrorKind::Internal:
        break;
    }
    return tr("failed");
}

QString CompareModel::failureText(const Error &error)
{
    return tr("%1: %2").arg(failureSummary(error), QString::fromStdString(error.message));
}

QVariant CompareModel::display(const PlannerOutcome &outcome, int column)
{
    if (column == Planner)
        return QString::fromUtf8(plannerName(outcome.planner));
    if (!outcome.search)
        // The whole message would widen the column past every number: it is in the row's
        // tooltip and in the details below the table.
        return column == IterationTime ? failureSummary(*outcome.error) : QString();
    const PlanSearch &s = *outcome.search;
    switch (column) {
    case IterationTime:
        return s.stoppedEarly
                   ? tr("%1 (stopped early)").arg(ResultsText::duration(s.evaluation.iterationS))
                   : ResultsText::duration(s.evaluation.iterationS);
    case Interval:
        return s.evaluation.interval ? ResultsText::range(s.evaluation.interval->iteration)
                                     : QString();
    case Mfu:
        return ResultsText::percent(s.evaluation.mfu);
    case TokensPerS:
        return QLocale().toString(s.evaluation.tokensPerS, 'f', 0);
    case Pipelines:
        return int(s.plan.pipelines.size());
    case PlanningTime:
        return ResultsText::duration(s.planningS);
    default:
        return {};
    }
}

QVariant CompareModel::sortValue(const PlannerOutcome &outcome, int column)
{
    if (column == Planner)
        return QString::fromUtf8(plannerName(outcome.planner));
    // Planners without a plan sort after every planner with one, whatever the column.
    constexpr double kNone = std::numeric_limits<double>::infinity();
    if (!outcome.search)
        return column == Mfu || column == TokensPerS ? -kNone : kNone;
    const PlanSearch &s = *outcome.search;
    switch (column) {
    case IterationTime:
        return s.evaluation.iterationS;
    case Interval:
        return rankingS(s.evaluation, RankBy::P90);
    case Mfu:
        return s.evaluation.mfu;
    case TokensPerS:
        return s.evaluation.tokensPerS;
    case Pipelines:
        return double(s.plan.pipelines.size());
    case PlanningTime:
        return s.planningS;
    default:
        return {};
    }
}

QVariant CompareModel::toolTip(const PlannerOutcome &outcome, int column)
{
    if (outcome.error)
        return failureText(*outcome.error);
    if (column != Interval || !outcome.search || !outcome.search->evaluation.interval)
        return {};
    const Evaluation &e = outcome.search->evaluation;
    QString text = tr("%1; sorted by its 90th percentile, %2")
                       .arg(ResultsText::durationWithInterval(e.iterationS, e.interval),
                            ResultsText::duration(rankingS(e, RankBy::P90)));
    if (const QString note = ResultsText::extrapolationNote(e.interval); !note.isEmpty())
        text += QLatin1Char('\n') + note + QLatin1Char('\n')
                + tr("The interval is the catalog's wide default; probe or calibrate to narrow "
                     "it.");
    return text;
}

QVariant CompareModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= int(m_outcomes.size()))
        return {};
    const PlannerOutcome &outcome = m_outcomes[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return display(outcome, index.column());
    case Qt::ToolTipRole:
        return toolTip(outcome, index.column());
    case Qt::DecorationRole:
        // The extrapolation mark: its tooltip names what nothing measured.
        return index.column() == Interval && outcome.search && outcome.search->evaluation.interval
                       && outcome.search->evaluation.interval->extrapolates()
                   ? QVariant(QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning))
                   : QVariant();
    case Qt::ForegroundRole:
        return outcome.search ? QVariant() : QVariant(QBrush(QColor(0xb0, 0x20, 0x20)));
    case Qt::TextAlignmentRole:
        return index.column() == Planner || !outcome.search
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case SortRole:
        return sortValue(outcome, index.column());
    case OutcomeRole:
        return index.row();
    default:
        return {};
    }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Planner:
        return tr("Planner");
    case IterationTime:
        return tr("Iteration time");
    case Interval:
        return tr("90 % interval");
    case Mfu:
        return tr("MFU");
    case TokensPerS:
        return tr("Tokens/s");
    case Pipelines:
        return tr("Pipelines");
    case PlanningTime:
        return tr("Time to plan");
    default:
        return {};
    }
}

} // namespace hetplan::gui
