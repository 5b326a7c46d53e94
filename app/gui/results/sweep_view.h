#pragma once

#include "core/planners/bandwidth_sweep.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QWidget>

#include <optional>
#include <stop_token>
#include <vector>

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace hetplan::gui {

class BackgroundRunner;

// Iteration time and MFU against the bandwidth of one chosen link or link class, from 0.1×
// to 10× of the drawn value: the current plan re-evaluated, and re-planned from it.
// Computed in the background by the app's BackgroundRunner, like planning.
class SweepView : public QWidget
{
    Q_OBJECT

public:
    explicit SweepView(QWidget *parent = nullptr);
    ~SweepView() override;

    void setBase(const ShownPlan &shown, CostModelKind costModel, PlannerKind planner);
    void clear();

    void startSweep(int targetIndex);
    void cancel();
    bool isRunning() const;
    const std::vector<SweepPoint> &points() const { return m_points; }
    QCustomPlot *plot() const { return m_plot; }

    static constexpr int kPoints = 9;

Q_SIGNALS:
    void sweepFinished();

private:
    void onFinished(bool cancelled);
    void showPoints();

    std::optional<ShownPlan> m_base;
    CostModelKind m_costModel = CostModelKind::HetPlan;
    PlannerKind m_planner = PlannerKind::HexiScale;
    std::vector<BandwidthTarget> m_targets;
    std::vector<SweepPoint> m_points;
    QString m_targetName;
    int m_baseGeneration = 0;  // counts setBase / clear
    int m_sweepGeneration = 0; // m_baseGeneration when the running or last sweep started

    QComboBox *m_targetBox = nullptr;
    QPushButton *m_runButton = nullptr;
    QLabel *m_status = nullptr;
    QCustomPlot *m_plot = nullptr;
    BackgroundRunner *m_runner = nullptr;
};

} // namespace hetplan::gui
