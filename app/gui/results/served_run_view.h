#pragma once

#include "core/cost/cost_model.h"
#include "core/serving/serving_comparison.h"
#include "core/serving/serving_measurement.h"
#include "results/shown_plan.h"

#include <QWidget>

#include <array>
#include <optional>

class QCPAxisRect;
class QCPBars;
class QCPErrorBars;
class QAction;
class QCPGraph;
class QCustomPlot;
class QLabel;
class QPushButton;

namespace hetplan::gui {

// The Serving tab's measured part (docs/app-launch.md, "Serving runs"): a serving run of the
// shown plan (hetplan.serving-measurement/1) beside the request-level simulation of the same
// requests (core/serving/serving_comparison.h, as `evaluate --measured` prints it): the latency
// CDF of both with the simulation's 90 % band, per replica the mean prefill, time per output
// token and queueing of both with the simulation's interval, SLO attainment of both, and the
// requests that failed with their reason. A run of another plan is refused by its digest.
class ServedRunView : public QWidget
{
    Q_OBJECT

public:
    enum Figure { Prefill, PerToken, Queueing, FigureCount };

    explicit ServedRunView(QWidget *parent = nullptr);

    // The plan the run is compared with; nullopt: no serving plan is shown. A run already shown
    // is compared again (another cost model), or refused when it is of another plan.
    void setPlan(const std::optional<ShownPlan> &shown, CostModelKind costModel);
    // Shows `measured` (read from `source`) beside the shown plan's simulation. False, with the
    // reason in message(), when no plan is shown or the run is of another plan or model.
    bool showRun(const ServingMeasurement &measured, const QString &source);
    // Reads a serving-measurement.json and shows it.
    bool openFile(const QString &path);
    // Writes the run held (shown, or refused for another plan) to `path` as
    // hetplan.serving-measurement/1, atomically, once its text reads back as openFile() reads
    // it. On failure the file at `path` and the run held are as they were; the message names
    // `path` and why.
    Status saveFile(const QString &path);
    // File › Save Serving Run…: asks for a file and saveFile()s to it; enabled while a run is
    // held (the launched one stays with the window otherwise).
    QAction *saveAction() const { return m_save; }
    void clearRun();

    bool hasComparison() const { return m_comparison.has_value(); }
    const std::optional<ServingComparison> &comparison() const { return m_comparison; }
    QString message() const;
    QCustomPlot *cdfPlot() const { return m_cdfPlot; }
    QCustomPlot *replicaPlot() const { return m_replicaPlot; }
    // The bars of one figure: simulated (with its interval) and measured, one per replica.
    QCPBars *simulatedBars(Figure figure) const { return m_simulated[figure]; }
    QCPBars *measuredBars(Figure figure) const { return m_measured[figure]; }
    QCPErrorBars *intervalBars(Figure figure) const { return m_interval[figure]; }
    QCPGraph *measuredCdf() const { return m_measuredCdf; }
    QCPGraph *simulatedCdf() const { return m_simulatedCdf; }
    // Open Serving Run…, for the Serving tab to place beside its summary.
    QPushButton *openButton() const { return m_open; }
    // Whether there is anything to show: a run compared, or why one is not.
    bool hasContent() const;

Q_SIGNALS:
    // A run was compared, refused or cleared.
    void contentChanged();

private:
    void compare();
    void showComparison();
    void showRefusal(const QString &why);
    void setChartsShown(bool shown);

    std::optional<ShownPlan> m_shown;
    CostModelKind m_costModel = CostModelKind::HetPlan;
    std::optional<ServingMeasurement> m_run;
    QString m_source;
    std::optional<ServingComparison> m_comparison;

    QLabel *m_summary;
    QPushButton *m_open;
    QAction *m_save;
    QWidget *m_charts;
    QCustomPlot *m_cdfPlot;
    QCPGraph *m_measuredCdf = nullptr;
    QCPGraph *m_simulatedCdf = nullptr;
    QCPGraph *m_lowCdf = nullptr;
    QCPGraph *m_highCdf = nullptr;
    QCPGraph *m_sloLine = nullptr;
    QCustomPlot *m_replicaPlot;
    std::array<QCPAxisRect *, FigureCount> m_rects{};
    std::array<QCPBars *, FigureCount> m_simulated{};
    std::array<QCPBars *, FigureCount> m_measured{};
    std::array<QCPErrorBars *, FigureCount> m_interval{};
};

} // namespace hetplan::gui
