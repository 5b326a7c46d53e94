#pragma once

#include "results/qcustomplot_include.h"
#include "results/results_text.h"
#include "results/shown_plan.h"

namespace hetplan::gui {

// Memory of every GPU the plan uses against its capacity: the capacity as an outlined bar,
// the use inside it, red where a GPU runs over.
class MemoryChart : public QCustomPlot
{
    Q_OBJECT

public:
    explicit MemoryChart(QWidget *parent = nullptr);

    void setPlan(const ShownPlan &shown);
    void clear(const QString &message = {});

    int gpuCount() const;
    double usedGiB(int index) const;
    double capacityGiB(int index) const;
    bool isOver(int index) const;

private:
    QCPBars *m_capacity = nullptr;
    QCPBars *m_fits = nullptr;
    QCPBars *m_over = nullptr;
};

} // namespace hetplan::gui
