#pragma once

#include "core/planners/bandwidth_sweep.h"
#include "results/results_text.h"

#include <QFutureWatcher>
#include <QWidget>

#include <optional>
#include <stop_token>
#include <vector>

class QComboBox;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace hetplan::gui {

// Iteration time and MFU against the bandwidth of one chosen link or link class, from 0.1×
// to 10× of the drawn value: the current plan re-evaluated, and re-planned from it.
// Computed in the background like planning (docs/architecture.md, "Background work").
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
    void onFinished();
    void showPoints();

    std::optional<ShownPlan> m_base;
    CostModelKind m_costModel = CostModelKind::HetPlan;
    PlannerKind m_planner = PlannerKind::HexiScale;
    std::vector<BandwidthTarget> m_targets;
    std::vector<SweepPoint> m_points;
    QString m_targetName;
    std::stop_source m_stop;

    QComboBox *m_targetBox = nullptr;
    QPushButton *m_runButton = nullptr;
    QLabel *m_status = nullptr;
    QCustomPlot *m_plot = nullptr;
    QFutureWatcher<std::vector<SweepPoint>> *m_watcher = nullptr;
};

} // namespace hetplan::gui
