// The Compare tab of the real window at its default size: a failing planner's message stays
// out of the numbers' way, several rows fit, and choosing a row shows that planner's plan and
// figures everywhere.
#include "mainwindow.h"
#include "results/breakdown_chart.h"
#include "results/compare_model.h"
#include "results/compare_view.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"
#include "results/results_text.h"
#include "tests/test_registry.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTest>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

constexpr int kPlanTimeoutMs = 120'000;

// The window at its default size with every planner compared on the case study (where the
// Megatron baseline finds no symmetric plan that fits).
bool compareAll(MainWindow &window)
{
    window.show();
    if (!window.openExample(QStringLiteral("case-study")))
        return false;
    QSignalSpy finished(window.results()->controller(), &PlanningController::finished);
    window.results()->compareAll();
    if (!finished.wait(kPlanTimeoutMs))
        return false;
    QApplication::processEvents();
    return true;
}

int rowOf(const CompareView *view, PlannerKind planner)
{
    const auto &outcomes
        = view->proxy()->sourceModel()
              ? static_cast<CompareModel *>(view->proxy()->sourceModel())->outcomes()
              : std::vector<PlannerOutcome>{};
    for (int row = 0; row < view->proxy()->rowCount(); ++row) {
        const int index = view->proxy()->index(row, 0).data(CompareModel::OutcomeRole).toInt();
        if (outcomes[size_t(index)].planner == planner)
            return row;
    }
    return -1;
}

} // namespace

class TestCompareTable : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void failureDoesNotWidenTheColumn();
    void severalRowsFitAtTheDefaultSize();
    void choosingARowUpdatesTheStatusLine();
};

void TestCompareTable::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestCompareTable::failureDoesNotWidenTheColumn()
{
    MainWindow window;
    QVERIFY(compareAll(window));
    CompareView *view = window.results()->compareView();
    QTableView *table = view->table();
    const int megatron = rowOf(view, PlannerKind::Megatron);
    QVERIFY(megatron >= 0);
    const QModelIndex cell = view->proxy()->index(megatron, CompareModel::IterationTime);
    const QString tip = cell.data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QLatin1String("GiB")), qPrintable(tip)); // the full message
    // Every column fits beside the others: no horizontal scrolling to reach the numbers.
    int widthPx = 0;
    for (int c = 0; c < CompareModel::ColumnCount - 1; ++c)
        widthPx += table->columnWidth(c);
    QVERIFY2(table->columnWidth(CompareModel::IterationTime) < 200,
             qPrintable(QString::number(table->columnWidth(CompareModel::IterationTime))));
    QVERIFY2(widthPx <= table->viewport()->width(),
             qPrintable(QStringLiteral("%1 > %2").arg(widthPx).arg(table->viewport()->width())));
    // The full message is in the details once the row is chosen.
    table->selectRow(megatron);
    QVERIFY2(view->details()->text().contains(QLatin1String("GiB")),
             qPrintable(view->details()->text()));
}

void TestCompareTable::severalRowsFitAtTheDefaultSize()
{
    MainWindow window;
    QCOMPARE(window.size(), QSize(1280, 800));
    QVERIFY(compareAll(window));
    QTableView *table = window.results()->compareView()->table();
    QVERIFY(table->isVisible());
    QVERIFY(table->model()->rowCount() >= 4);
    const int rowsVisible = table->viewport()->height() / table->rowHeight(0);
    QVERIFY2(rowsVisible >= 4, qPrintable(QString::number(rowsVisible)));
}

void TestCompareTable::choosingARowUpdatesTheStatusLine()
{
    MainWindow window;
    QVERIFY(compareAll(window));
    CompareView *view = window.results()->compareView();
    const int holmes = rowOf(view, PlannerKind::Holmes);
    QVERIFY(holmes >= 0);
    view->table()->selectRow(holmes);
    const ShownPlan &shown = *window.results()->shownPlan();
    QCOMPARE(QString::fromStdString(shown.plan.planner), QStringLiteral("holmes"));
    const QString status = window.results()->progressLabel()->text();
    QVERIFY2(status.contains(QLatin1String("holmes"))
                 && status.contains(ResultsText::duration(shown.evaluation.iterationS))
                 && status.contains(ResultsText::percent(shown.evaluation.mfu)),
             qPrintable(status));
    // The prediction's interval, and what it extrapolates from: the case study's GPU types
    // have catalog figures only (docs/cost-models.md, "Prediction intervals").
    QVERIFY(shown.evaluation.interval && shown.evaluation.interval->extrapolates());
    QVERIFY2(status.contains(ResultsText::durationWithInterval(shown.evaluation.iterationS,
                                                               shown.evaluation.interval))
                 && status.contains(ResultsText::extrapolated(*shown.evaluation.interval)),
             qPrintable(status));
    const QModelIndex interval = view->proxy()->index(holmes, CompareModel::Interval);
    QCOMPARE(interval.data().toString(), ResultsText::range(shown.evaluation.interval->iteration));
    QVERIFY(!interval.data(Qt::DecorationRole).isNull());
    QVERIFY(window.results()->breakdownChart()->shownInterval());
}

HETPLAN_TEST_MAIN(TestCompareTable)
#include "tst_compare_table.moc"
