#include "results/timeline_chart.h"

#include "results/chart_support.h"

#include <algorithm>

namespace hetplan::gui {

// A Gantt chart as one plottable: thousands of boxes (stages × micro-batches × 2) drawn in
// one pass, only those in view, rather than one QCPItemRect each.
class GanttPlottable : public QCPAbstractPlottable
{
public:
    struct Box
    {
        int row = 0;
        double startS = 0;
        double endS = 0;
        int microBatch = 0;
        bool backward = false;
        QColor color;
    };

    GanttPlottable(QCPAxis *keyAxis, QCPAxis *valueAxis)
        : QCPAbstractPlottable(keyAxis, valueAxis)
    {
        // Axis-aligned boxes gain nothing from antialiasing and a large plan has tens of
        // thousands of them.
        setAntialiased(false);
    }

    std::vector<Box> boxes;
    int rows = 0;

    double selectTest(const QPointF &, bool, QVariant *) const override { return -1; }

    QCPRange getKeyRange(bool &foundRange, QCP::SignDomain) const override
    {
        foundRange = !boxes.empty();
        double end = 0;
        for (const Box &b : boxes)
            end = std::max(end, b.endS);
        return {0, end};
    }

    QCPRange getValueRange(bool &foundRange, QCP::SignDomain, const QCPRange &) const override
    {
        foundRange = rows > 0;
        return {-0.5, rows - 0.5};
    }

protected:
    void draw(QCPPainter *painter) override
    {
        const QCPRange visible = mKeyAxis->range();
        const QFontMetrics fm(mParentPlot->font());
        painter->setFont(mParentPlot->font());
        applyDefaultAntialiasingHint(painter);
        // Below this width no micro-batch number fits; most boxes of a long pipeline are.
        const int narrowestLabel = fm.horizontalAdvance(QStringLiteral("0")) + 4;
        // Boxes a few pixels wide merge into runs while they touch: a pipeline with thousands
        // of micro-batches draws one rectangle per busy stretch instead of one per pass, and
        // every bubble wider than a pixel still shows.
        QRectF run;
        QColor runColor;
        const auto flush = [&] {
            if (run.isEmpty())
                return;
            painter->setPen(Qt::NoPen);
            painter->setBrush(runColor);
            painter->drawRect(run);
            run = {};
        };
        for (const Box &b : boxes) {
            if (b.endS < visible.lower || b.startS > visible.upper)
                continue;
            const QPointF topLeft = coordsToPixels(b.startS, b.row - 0.38);
            const QPointF bottomRight = coordsToPixels(b.endS, b.row + 0.38);
            const QRectF rect = QRectF(topLeft, bottomRight).normalized();
            if (rect.width() < 3) {
                if (!run.isEmpty() && qFuzzyCompare(run.top(), rect.top())
                    && rect.left() <= run.right() + 1) {
                    run.setRight(std::max(run.right(), rect.right()));
                    if (b.backward)
                        runColor = b.color; // the darker pass shows through, as it does unmerged
                    continue;
                }
                flush();
                run = rect;
                runColor = b.color;
                continue;
            }
            flush();
            painter->setPen(QPen(b.color.darker(170), 0));
            painter->setBrush(b.color);
            painter->drawRect(rect);
            if (rect.width() < narrowestLabel || rect.height() < fm.height())
                continue;
            const QString label = QString::number(b.microBatch + 1);
            if (rect.width() > fm.horizontalAdvance(label) + 4) {
                painter->setPen(Qt::black);
                painter->drawText(rect, Qt::AlignCenter, label);
            }
        }
        flush();
    }

    void drawLegendIcon(QCPPainter *painter, const QRectF &rect) const override
    {
        const QColor light(0xa6, 0xce, 0xe3);
        QRectF left = rect;
        left.setWidth(rect.width() / 2);
        painter->setPen(Qt::NoPen);
        painter->setBrush(light);
        painter->drawRect(left);
        painter->setBrush(light.darker(150));
        painter->drawRect(left.translated(left.width(), 0));
    }
};

std::vector<StageWork> stageWorkOf(const PipelineTiming &pipeline)
{
    std::vector<StageWork> work;
    for (size_t j = 0; j < pipeline.stages.size(); ++j) {
        const StageTiming &s = pipeline.stages[j];
        StageWork w;
        w.forwardS = s.forwardS;
        w.backwardS = s.backwardS;
        w.sendForwardS = j + 1 < pipeline.stages.size() ? s.hopS / 2 : 0.0;
        w.sendBackwardS = j > 0 ? pipeline.stages[j - 1].hopS / 2 : 0.0;
        work.push_back(w);
    }
    return work;
}

TimelineChart::TimelineChart(QWidget *parent)
    : QCustomPlot(parent)
{
    setUpChart(this, tr("1F1B timeline"));
    m_gantt = new GanttPlottable(xAxis, yAxis);
    m_gantt->setName(tr("Forward (light), backward (dark); gaps are bubbles"));
    xAxis->setLabel(tr("seconds"));
    yAxis->setRangeReversed(true);
    clear();
}

int TimelineChart::rowCount() const
{
    return m_gantt->rows;
}

void TimelineChart::clear(const QString &message)
{
    m_gantt->boxes.clear();
    m_gantt->rows = 0;
    m_timelines.clear();
    setCategoryAxis(yAxis, {});
    setChartPlaceholder(this, message.isEmpty() ? tr("No plan yet") : message);
    setChartTitle(this, tr("1F1B timeline"));
    setToolTip({});
    replot();
}

void TimelineChart::setPlan(const ShownPlan &shown)
{
    const Plan &plan = shown.plan;
    const Evaluation &e = shown.evaluation;
    m_gantt->boxes.clear();
    m_timelines.clear();
    if (plan.workload.mode == Mode::Infer || e.pipelines.size() != plan.pipelines.size()) {
        clear(tr("No 1F1B schedule: serving replicas run one batch at a time"));
        return;
    }
    const Topology &topology = shown.problem->topology;
    const bool many = plan.pipelines.size() > 1;
    QStringList rows;
    double makespanS = 0;
    double closedFormS = 0;
    for (size_t p = 0; p < plan.pipelines.size(); ++p) {
        closedFormS = std::max(closedFormS, e.pipelines[p].timeS);
        const Pipeline &pipeline = plan.pipelines[p];
        const std::vector<StageWork> work = stageWorkOf(e.pipelines[p]);
        m_timelines.push_back(simulate1F1B(work, std::max(pipeline.microBatches, 1)));
        const Timeline &timeline = m_timelines.back();
        makespanS = std::max(makespanS, timeline.makespanS);
        const int firstRow = int(rows.size());
        for (size_t j = 0; j < pipeline.stages.size(); ++j)
            rows << (many ? tr("P%1 S%2").arg(p).arg(j) : ResultsText::stageName(int(j)));
        for (const Interval &interval : timeline.intervals) {
            const Stage &stage = pipeline.stages[size_t(interval.stage)];
            QColor color = gpuTypeColor(topology, stage.gpus.front());
            if (interval.pass == Pass::Backward)
                color = color.darker(150);
            m_gantt->boxes.push_back({firstRow + interval.stage, interval.startS, interval.endS,
                                      interval.microBatch, interval.pass == Pass::Backward, color});
        }
    }
    // Row by row in time order, so that draw() can merge neighbours.
    std::stable_sort(m_gantt->boxes.begin(), m_gantt->boxes.end(),
                     [](const GanttPlottable::Box &a, const GanttPlottable::Box &b) {
                         return a.row != b.row ? a.row < b.row : a.startS < b.startS;
                     });
    m_gantt->rows = int(rows.size());
    setCategoryAxis(yAxis, rows);
    xAxis->setRange(0, makespanS > 0 ? makespanS * 1.02 : 1);
    setChartPlaceholder(this, {});
    // The event simulation waits where the closed form the cost models use does not (a
    // backward pass blocked behind a slower later stage), so the two may differ: say both,
    // and which one the planners rank plans by.
    setChartTitle(this,
                  tr("1F1B timeline: %1 simulated for the slowest pipeline · the planner "
                     "optimises the cost model's estimate, %2")
                      .arg(ResultsText::duration(makespanS), ResultsText::duration(closedFormS)));
    setToolTip(
        tr("The planner ranks plans by the cost model's closed-form estimate (%1 here), which "
           "is fast enough to score thousands of candidates.\nThis chart replays the 1F1B "
           "schedule micro-batch by micro-batch (%2): a stage that waits for a slower "
           "neighbour — a backward pass held up behind a slower later stage — waits here but "
           "not in the estimate, so the two can differ.")
            .arg(ResultsText::duration(closedFormS), ResultsText::duration(makespanS)));
    replot();
}

} // namespace hetplan::gui
