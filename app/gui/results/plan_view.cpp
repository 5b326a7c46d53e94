#include "results/plan_view.h"

#include <QHelpEvent>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>

namespace hetplan::gui {

namespace {

constexpr int kMargin = 12;
constexpr int kPadding = 6;
constexpr int kStageLines = 5;

// Geometry follows the font, so the boxes grow with a larger system font instead of clipping,
// and with the stages' titles, which are never cut (a 70B model's "0–39 (40 layers)").
struct Metrics
{
    int line;
    int boxWidth;
    int boxHeight;
    int arrowGap;
    int rowGap;
    int headerWidth;
    int legendHeight;

    Metrics(const QFontMetrics &fm, int titleWidthPx)
        : line(fm.height())
        , boxWidth(std::max(fm.averageCharWidth() * 30, titleWidthPx + 2 * kPadding))
        , boxHeight(kStageLines * fm.height() + 2 * kPadding)
        , arrowGap(fm.averageCharWidth() * 4)
        , rowGap(fm.height())
        , headerWidth(fm.averageCharWidth() * 26)
        , legendHeight(fm.height() + 2 * kPadding)
    {}
};

} // namespace

PlanView::PlanView(QWidget *parent)
    : QWidget(parent)
{
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
    setFocusPolicy(Qt::ClickFocus);
    clear();
}

void PlanView::setPlan(const ShownPlan &shown)
{
    m_shown = shown;
    m_message.clear();
    m_selected.reset();
    m_highlighted.clear();
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    m_titleWidthPx = 0;
    for (int p = 0; p < int(shown.plan.pipelines.size()); ++p)
        for (int j = 0; j < int(shown.plan.pipelines[size_t(p)].stages.size()); ++j)
            m_titleWidthPx
                = std::max(m_titleWidthPx,
                           fm.horizontalAdvance(stageText(p, j).section(QLatin1Char('\n'), 0, 0)));
    updateGeometry();
    update();
}

void PlanView::clear(const QString &message)
{
    m_shown = {};
    m_message = message.isEmpty() ? tr("No plan yet. Choose a planner and press Plan.") : message;
    m_selected.reset();
    m_highlighted.clear();
    updateGeometry();
    update();
}

QString PlanView::microBatchText(const Pipeline &pipeline)
{
    return tr("micro-batches: %1 × %2").arg(pipeline.microBatches).arg(pipeline.microBatch);
}

QString PlanView::pipelineText(int pipeline) const
{
    const Plan &plan = m_shown.plan;
    const Pipeline &p = plan.pipelines[size_t(pipeline)];
    const Mode mode = plan.workload.mode;
    const QString name = ResultsText::pipelineName(mode, pipeline);
    if (mode == Mode::Infer)
        return name + QLatin1Char('\n') + tr("batch %1").arg(plan.workload.infer.batch);
    QString text = name + QLatin1Char('\n') + microBatchText(p);
    if (size_t(pipeline) < m_shown.evaluation.pipelines.size())
        text += QLatin1Char('\n')
                + ResultsText::duration(m_shown.evaluation.pipelines[size_t(pipeline)].timeS);
    return text;
}

QString PlanView::stageText(int pipeline, int stage) const
{
    const Plan &plan = m_shown.plan;
    const Topology &topology = m_shown.problem->topology;
    const Pipeline &p = plan.pipelines[size_t(pipeline)];
    const Stage &s = p.stages[size_t(stage)];
    const QStringList lines = {
        tr("%1 · %2", "stage name · its layers, e.g. Stage 0 · 12–30 (19 layers)")
            .arg(ResultsText::stageName(stage), ResultsText::layerRange(s.layerBegin, s.layerEnd)),
        ResultsText::gpuList(topology, s.gpus),
        tr("TP %1 · DP %2").arg(s.tp).arg(s.dp),
        plan.workload.mode == Mode::Infer ? tr("batch %1").arg(plan.workload.infer.batch)
                                          : microBatchText(p),
        ResultsText::gpuTypes(topology, s.gpus).join(QStringLiteral(" + ")),
    };
    return lines.join(QLatin1Char('\n'));
}

int PlanView::rowTop(int pipeline) const
{
    const Metrics m(fontMetrics(), m_titleWidthPx);
    return kMargin + m.legendHeight + pipeline * (m.boxHeight + m.rowGap);
}

QRect PlanView::headerRect(int pipeline) const
{
    const Metrics m(fontMetrics(), m_titleWidthPx);
    return {kMargin, rowTop(pipeline), m.headerWidth, m.boxHeight};
}

QRect PlanView::stageRect(int pipeline, int stage) const
{
    const Metrics m(fontMetrics(), m_titleWidthPx);
    const int left = kMargin + m.headerWidth + stage * (m.boxWidth + m.arrowGap);
    return {left, rowTop(pipeline), m.boxWidth, m.boxHeight};
}

QSize PlanView::sizeHint() const
{
    const Metrics m(fontMetrics(), m_titleWidthPx);
    if (!hasPlan())
        return {fontMetrics().horizontalAdvance(m_message) + 2 * kMargin, 4 * m.line};
    int widest = 1;
    for (const Pipeline &p : m_shown.plan.pipelines)
        widest = std::max(widest, int(p.stages.size()));
    const int pipelines = int(m_shown.plan.pipelines.size());
    return {stageRect(0, widest - 1).right() + kMargin, rowTop(pipelines) + kMargin};
}

QSize PlanView::minimumSizeHint() const
{
    // The whole plan: in a scroll area this gives scroll bars instead of clipped boxes.
    return sizeHint();
}

bool PlanView::isHighlighted(int pipeline, int stage) const
{
    return std::find(m_highlighted.begin(), m_highlighted.end(), std::pair(pipeline, stage))
           != m_highlighted.end();
}

void PlanView::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    paintPlan(painter);
}

void PlanView::paintPlan(QPainter &painter) const
{
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setFont(font());
    if (!hasPlan()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(QRect(kMargin, kMargin, sizeHint().width(), fontMetrics().height() * 2),
                         Qt::AlignLeft | Qt::AlignTop, m_message);
        return;
    }
    paintLegend(painter);
    const Metrics m(fontMetrics(), m_titleWidthPx);
    for (int p = 0; p < int(m_shown.plan.pipelines.size()); ++p) {
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(headerRect(p).adjusted(0, kPadding, -kPadding, 0),
                         Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, pipelineText(p));
        const int stages = int(m_shown.plan.pipelines[size_t(p)].stages.size());
        for (int j = 0; j < stages; ++j) {
            paintStage(painter, p, j);
            if (j + 1 == stages)
                continue;
            // The activation hop to the next stage.
            const QRect r = stageRect(p, j);
            const QPointF from(r.right() + 3, r.center().y());
            const QPointF to(r.right() + m.arrowGap - 3, r.center().y());
            painter.setPen(QPen(palette().color(QPalette::Mid), 1.5));
            painter.drawLine(from, to);
            painter.drawLine(to, to + QPointF(-5, -4));
            painter.drawLine(to, to + QPointF(-5, 4));
        }
    }
}

void PlanView::paintLegend(QPainter &painter) const
{
    const Topology &topology = m_shown.problem->topology;
    std::vector<int> used;
    for (const Pipeline &p : m_shown.plan.pipelines)
        for (const Stage &s : p.stages)
            used.insert(used.end(), s.gpus.begin(), s.gpus.end());
    const QFontMetrics fm = fontMetrics();
    int x = kMargin;
    std::vector<int> shownTypes;
    for (int gpu : used) {
        const int type = topology.gpu(gpu).typeIndex;
        if (std::find(shownTypes.begin(), shownTypes.end(), type) != shownTypes.end())
            continue;
        shownTypes.push_back(type);
        const QRect swatch(x, kMargin, fm.height(), fm.height());
        painter.fillRect(swatch, gpuTypeColor(topology, gpu));
        painter.setPen(palette().color(QPalette::Mid));
        painter.drawRect(swatch);
        const QString name = QString::fromStdString(topology.gpuType(gpu).name);
        painter.setPen(palette().color(QPalette::Text));
        painter.drawText(x + fm.height() + 4, kMargin + fm.ascent(), name);
        x += fm.height() + 4 + fm.horizontalAdvance(name) + 2 * fm.averageCharWidth();
    }
}

void PlanView::paintStage(QPainter &painter, int pipeline, int stage) const
{
    const Topology &topology = m_shown.problem->topology;
    const Stage &s = m_shown.plan.pipelines[size_t(pipeline)].stages[size_t(stage)];
    const QRect r = stageRect(pipeline, stage);

    // One vertical band per GPU, so a stage that mixes types shows its mix.
    QPainterPath outline;
    outline.addRoundedRect(r, 6, 6);
    painter.save();
    painter.setClipPath(outline);
    const int n = std::max<int>(1, int(s.gpus.size()));
    for (int i = 0; i < n && i < int(s.gpus.size()); ++i) {
        const int left = r.left() + r.width() * i / n;
        const int right = r.left() + r.width() * (i + 1) / n;
        painter.fillRect(QRect(left, r.top(), right - left, r.height()),
                         gpuTypeColor(topology, s.gpus[size_t(i)]));
    }
    painter.restore();

    const bool selected = m_selected == std::pair(pipeline, stage);
    const bool highlighted = isHighlighted(pipeline, stage);
    QPen border(selected || highlighted ? palette().color(QPalette::Highlight)
                                        : QColor(0x60, 0x60, 0x60));
    border.setWidthF(selected ? 3 : highlighted ? 2.5 : 1);
    painter.setPen(border);
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(outline);

    // Black on the pastel fill regardless of the palette: the fill is always light.
    painter.setPen(Qt::black);
    const QFontMetrics fm = fontMetrics();
    const QStringList lines = stageText(pipeline, stage).split(QLatin1Char('\n'));
    const int textWidth = r.width() - 2 * kPadding;
    for (int i = 0; i < lines.size(); ++i) {
        QFont f = font();
        f.setBold(i == 0);
        painter.setFont(f);
        const QString shown = QFontMetrics(f).elidedText(lines[i], Qt::ElideRight, textWidth);
        painter.drawText(r.left() + kPadding, r.top() + kPadding + i * fm.height() + fm.ascent(),
                         shown);
    }
    painter.setFont(font());
}

QString PlanView::stageToolTip(int pipeline, int stage) const
{
    QString tip = stageText(pipeline, stage)
                      .toHtmlEscaped()
                      .replace(QLatin1Char('\n'), QStringLiteral("<br>"));
    const Evaluation &e = m_shown.evaluation;
    if (size_t(pipeline) < e.pipelines.size()
        && size_t(stage) < e.pipelines[size_t(pipeline)].stages.size()) {
        const StageTiming &t = e.pipelines[size_t(pipeline)].stages[size_t(stage)];
        tip += QStringLiteral("<br>")
               + tr("per micro-batch: forward %1, backward %2, hop %3")
                     .arg(ResultsText::duration(t.forwardS), ResultsText::duration(t.backwardS),
                          ResultsText::duration(t.hopS));
    }
    return tip;
}

bool PlanView::event(QEvent *event)
{
    if (event->type() == QEvent::ToolTip && hasPlan()) {
        auto *help = static_cast<QHelpEvent *>(event);
        for (int p = 0; p < int(m_shown.plan.pipelines.size()); ++p)
            for (int j = 0; j < int(m_shown.plan.pipelines[size_t(p)].stages.size()); ++j)
                if (stageRect(p, j).contains(help->pos())) {
                    QToolTip::showText(help->globalPos(), stageToolTip(p, j), this);
                    return true;
                }
        QToolTip::hideText();
        event->ignore();
        return true;
    }
    return QWidget::event(event);
}

void PlanView::mousePressEvent(QMouseEvent *event)
{
    if (!hasPlan() || event->button() != Qt::LeftButton)
        return QWidget::mousePressEvent(event);
    for (int p = 0; p < int(m_shown.plan.pipelines.size()); ++p)
        for (int j = 0; j < int(m_shown.plan.pipelines[size_t(p)].stages.size()); ++j)
            if (stageRect(p, j).contains(event->position().toPoint())) {
                selectStage(p, j);
                return;
            }
    m_selected.reset();
    m_highlighted.clear();
    update();
    Q_EMIT stageSelected({});
}

void PlanView::selectStage(int pipeline, int stage)
{
    m_selected = std::pair(pipeline, stage);
    m_highlighted.clear();
    update();
    const Stage &s = m_shown.plan.pipelines[size_t(pipeline)].stages[size_t(stage)];
    Q_EMIT stageSelected(ResultsText::gpuNames(m_shown.problem->topology, s.gpus));
}

void PlanView::highlightGpus(const QStringList &gpuNames)
{
    m_highlighted.clear();
    m_selected.reset();
    if (hasPlan()) {
        const Topology &topology = m_shown.problem->topology;
        for (int p = 0; p < int(m_shown.plan.pipelines.size()); ++p) {
            const auto &stages = m_shown.plan.pipelines[size_t(p)].stages;
            for (int j = 0; j < int(stages.size()); ++j)
                for (int gpu : stages[size_t(j)].gpus)
                    if (gpuNames.contains(QString::fromStdString(topology.gpu(gpu).name))) {
                        m_highlighted.emplace_back(p, j);
                        break;
                    }
        }
    }
    update();
}

} // namespace hetplan::gui
