#pragma once

#include "core/cost/cost_model.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

#include <QWidget>

#include <vector>

class QCPBars;
class QCPErrorBars;
class QCPGraph;
class QCustomPlot;
class QLabel;

namespace hetplan::gui {

class ServedRunView;

// Inference plans: the request latency of every serving replica against the SLO, and SLO
// attainment against request rate with latency percentiles from the core's serving
// simulation (HexGen §5, Poisson arrivals), at 1/8× to 8× the workload's request rate
// (§5.1's 0.125-8 requests/s around a rate of 1). The SLO is the core's: slo_s, or slo_scale ×
// the reference latency under the cost model the plan is shown with (core/serving). Each
// replica's latency carries its 90 % interval (docs/cost-models.md, "Prediction intervals").
// Below, a serving run of the plan beside the simulation of its requests (ServedRunView).
class ServingView : public QWidget
{
    Q_OBJECT

public:
    explicit ServingView(QWidget *parent = nullptr);

    void setPlan(const ShownPlan &shown, CostModelKind costModel = CostModelKind::HetPlan);
    void clear(const QString &message = {});

    struct AttainmentPoint
    {
        double requestRatePerS = 0;
        double attainment = 0; // fraction of requests within the SLO
        double p50S = 0;
        double p99S = 0;
    };
    void setAttainment(const std::vector<AttainmentPoint> &points);
    int attainmentPointCount() const;

    QCustomPlot *latencyPlot() const { return m_latencyPlot; }
    QCustomPlot *attainmentPlot() const { return m_attainmentPlot; }
    QCPErrorBars *latencyInterval() const { return m_latencyInterval; }
    ServedRunView *servedRunView() const { return m_served; }

    // Height of one replica's bar row: a tick label and a gap.
    int replicaRowPx() const;

private:
    // Tall enough for `replicas` readable rows; the charts scroll beyond the tab's height.
    void fitLatencyRows(int replicas);

    QCustomPlot *m_latencyPlot = nullptr;
    QCPBars *m_latencyBars = nullptr;
    QCPErrorBars *m_latencyInterval = nullptr;
    QCPGraph *m_sloLine = nullptr;
    QCustomPlot *m_attainmentPlot = nullptr;
    QCPGraph *m_attainment = nullptr;
    QCPGraph *m_p50 = nullptr;
    QCPGraph *m_p99 = nullptr;
    QLabel *m_summary = nullptr;
    ServedRunView *m_served = nullptr;
    int m_replicas = 0;
};

} // namespace hetplan::gui
