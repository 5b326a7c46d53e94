#include "results/memory_chart.h"

#include "results/chart_support.h"

namespace hetplan::gui {

MemoryChart::MemoryChart(QWidget *parent)
    : QCustomPlot(parent)
{
    setUpChart(this, tr("Memory per GPU"));
    m_capacity = new QCPBars(xAxis, yAxis);
    m_capacity->setName(tr("Capacity"));
    m_capacity->setBrush(QColor(0xe4, 0xe4, 0xe4));
    m_capacity->setPen(QPen(QColor(0x80, 0x80, 0x80)));
    m_capacity->setWidth(0.75);
    // Used memory in two series, so that the legend explains the red.
    m_fits = new QCPBars(xAxis, yAxis);
    m_fits->setName(tr("Used"));
    m_fits->setBrush(QColor(0x4c, 0x72, 0xb0));
    m_fits->setPen(Qt::NoPen);
    m_fits->setWidth(0.45);
    m_over = new QCPBars(xAxis, yAxis);
    m_over->setName(tr("Over capacity"));
    m_over->setBrush(QColor(0xd6, 0x27, 0x28));
    m_over->setPen(Qt::NoPen);
    m_over->setWidth(0.45);
    yAxis->setLabel(tr("GiB"));
    clear();
}

void MemoryChart::clear(const QString &message)
{
    for (QCPBars *bars : {m_capacity, m_fits, m_over})
        bars->data()->clear();
    setCategoryAxis(xAxis, {});
    setChartPlaceholder(this, message.isEmpty() ? tr("No plan yet") : message);
    yAxis->setRange(0, 1);
    replot();
}

void MemoryChart::setPlan(const ShownPlan &shown)
{
    const Topology &topology = shown.problem->topology;
    QStringList labels;
    QVector<double> keys;
    QVector<double> capacity;
    QVector<double> fits;
    QVector<double> over;
    double highest = 0;
    int overCount = 0;
    for (const GpuMemory &m : shown.evaluation.memory) {
        keys << double(labels.size());
        labels << QString::fromStdString(topology.gpu(m.gpu).name);
        capacity << m.capacityGiB;
        // A bar of 0 in the other series keeps keys aligned for usedGiB(index).
        fits << (m.fits() ? m.usedGiB : 0.0);
        over << (m.fits() ? 0.0 : m.usedGiB);
        overCount += m.fits() ? 0 : 1;
        highest = std::max({highest, m.usedGiB, m.capacityGiB});
    }
    // Outlines of hundreds of bars would hatch the chart; fills alone read better there.
    m_capacity->setPen(keys.size() > 60 ? QPen(Qt::NoPen) : QPen(QColor(0x80, 0x80, 0x80)));
    m_capacity->setData(keys, capacity, true);
    m_fits->setData(keys, fits, true);
    m_over->setData(keys, over, true);
    setCategoryAxis(xAxis, labels);
    setChartPlaceholder(this, {});
    yAxis->setRange(0, highest > 0 ? highest * 1.08 : 1);
    setChartTitle(this, overCount == 0 ? tr("Memory per GPU: every GPU fits")
                                       : tr("Memory per GPU: over capacity on %1 of %2 GPUs")
                                             .arg(overCount)
                                             .arg(labels.size()));
    replot();
}

int MemoryChart::gpuCount() const
{
    return m_capacity->data()->size();
}

double MemoryChart::usedGiB(int index) const
{
    return m_fits->data()->at(index)->value + m_over->data()->at(index)->value;
}

double MemoryChart::capacityGiB(int index) const
{
    return m_capacity->data()->at(index)->value;
}

bool MemoryChart::isOver(int index) const
{
    return m_over->data()->at(index)->value > 0;
}

} // namespace hetplan::gui
