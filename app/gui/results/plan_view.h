#pragma once

#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QWidget>

#include <optional>
#include <vector>

namespace hetplan::gui {

// The plan as rows of stage boxes: one row per pipeline (per serving replica in inference),
// each box with its GPUs, TP and DP degree, layer range and micro-batches, filled with the
// colours of its GPU types. Clicking a box selects the stage and announces its GPUs;
// highlightGpus() does the reverse for a selection made elsewhere (the canvas).
class PlanView : public QWidget
{
    Q_OBJECT

public:
    explicit PlanView(QWidget *parent = nullptr);

    void setPlan(const ShownPlan &shown);
    void clear(const QString &message = {});
    bool hasPlan() const { return m_shown.problem != nullptr; }

    // The text of one box, lines joined by '\n' (what is painted, before eliding).
    QString stageText(int pipeline, int stage) const;
    QString pipelineText(int pipeline) const;
    // "micro-batches: 24 × 1": how many per iteration, of how many sequences each.
    static QString microBatchText(const Pipeline &pipeline);
    // The selected stage, when one is.
    std::optional<std::pair<int, int>> selectedStage() const { return m_selected; }
    void selectStage(int pipeline, int stage); // announces its GPUs, as a click does

    const std::vector<std::pair<int, int>> &highlightedStages() const { return m_highlighted; }
    // Where a stage's box is, in widget coordinates.
    QRect stageRect(int pipeline, int stage) const;

    // Paints the whole plan at its natural size (exports use this, not the visible part).
    void paintPlan(QPainter &painter) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public Q_SLOTS:
    // Highlights the stages holding any of these GPUs ("A:0"); announces nothing.
    void highlightGpus(const QStringList &gpuNames);

Q_SIGNALS:
    // The GPUs of the stage a person selected; empty when the selection was cleared.
    void stageSelected(const QStringList &gpuNames);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    QRect headerRect(int pipeline) const;
    int rowTop(int pipeline) const;
    void paintLegend(QPainter &painter) const;
    void paintStage(QPainter &painter, int pipeline, int stage) const;
    bool isHighlighted(int pipeline, int stage) const;
    QString stageToolTip(int pipeline, int stage) const;
    bool event(QEvent *event) override;

    ShownPlan m_shown;
    QString m_message;
    std::optional<std::pair<int, int>> m_selected;
    std::vector<std::pair<int, int>> m_highlighted;
    int m_titleWidthPx = 0; // the widest stage title, in bold
};

} // namespace hetplan::gui
