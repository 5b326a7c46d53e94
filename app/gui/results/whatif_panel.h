#pragma once

#include "core/cost/cost_model.h"
#include "core/model/bandwidth_edit.h"
#include "core/planners/planner.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QPushButton;
class QSlider;
class QTimer;
class QVBoxLayout;

namespace hetplan::gui {

class PlanningController;

// "What if this link were faster?": one slider per link and per link class scales its
// bandwidth (0.1× to 10×, logarithmic). Every move re-evaluates the current plan at once on
// the changed cluster (a copy; the drawn cluster is untouched); after a pause it re-plans
// from the current plan in the background (warm start) and says whether the strategy
// changed. Reset puts every slider back.
class WhatIfPanel : public QWidget
{
    Q_OBJECT

public:
    explicit WhatIfPanel(QWidget *parent = nullptr);
    ~WhatIfPanel() override;

    // By value: clear() drops what `shown` may refer to (the re-planned plan).
    void setBase(ShownPlan base, CostModelKind costModel, PlannerKind planner);
    void clear();

    // Slider positions are hundredths of a decade: factor = 10^(position / 100).
    static double factorAt(int position);
    int sliderCount() const { return int(m_sliders.size()); }
    QSlider *slider(int index) const { return m_sliders[size_t(index)]; }
    const BandwidthTarget &target(int index) const { return m_targets[size_t(index)]; }
    int sliderFor(const BandwidthTarget &target) const; // -1 when there is none
    // The value shown beside slider `index`: a link's bandwidth with every slider applied.
    QString valueText(int index) const;

    // The cluster the sliders describe, and the current plan evaluated on it.
    Cluster changedCluster() const;
    const std::optional<Evaluation> &changedEvaluation() const { return m_changed; }
    QString changedText() const;
    double lastEvaluationMs() const { return m_lastEvaluationMs; }
    // The re-plan behind the sliders (for tests to wait on).
    PlanningController *replanner() const { return m_replanner; }
    const std::optional<ShownPlan> &replannedPlan() const { return m_replanned; }

    static constexpr int kDebounceMs = 300;

public Q_SLOTS:
    void reset();

Q_SIGNALS:
    void evaluated(); // changedEvaluation() is new
    void replanned(); // replannedPlan() is new
    void showPlanRequested(const hetplan::gui::ShownPlan &shown);

private:
    void rebuildSliders();
    void reevaluate();
    void startReplan();
    void onReplanFinished(bool cancelled);
    void updateValueLabels();
    std::vector<double> sliderFactors() const;
    // The base problem on the topology the sliders describe.
    Result<Problem> changedProblem() const;

    std::optional<ShownPlan> m_base;
    CostModel m_costModel;
    PlannerKind m_planner = PlannerKind::HexiScale;
    std::vector<BandwidthTarget> m_targets;
    std::vector<QSlider *> m_sliders;
    std::vector<QLabel *> m_valueLabels;
    std::optional<Evaluation> m_changed;
    std::optional<ShownPlan> m_replanned;
    double m_lastEvaluationMs = 0;

    QVBoxLayout *m_sliderLayout = nullptr;
    QWidget *m_sliderBox = nullptr;
    QLabel *m_currentLabel = nullptr;
    QLabel *m_replanLabel = nullptr;
    QPushButton *m_showButton = nullptr;
    QPushButton *m_resetButton = nullptr;
    QTimer *m_debounce = nullptr;
    PlanningController *m_replanner = nullptr;
};

} // namespace hetplan::gui
