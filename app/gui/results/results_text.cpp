#include "results/results_text.h"

#include "core/cost/phase_key.h"

#include <QLocale>

#include <algorithm>
#include <array>
#include <cmath>

namespace hetplan::gui {

QString ResultsText::duration(double seconds)
{
    if (!std::isfinite(seconds))
        return QStringLiteral("∞");
    const QLocale locale;
    const double magnitude = std::abs(seconds);
    if (magnitude >= 1 || magnitude == 0)
        return tr("%1 s").arg(locale.toString(seconds, 'f', magnitude >= 100 ? 0 : 2));
    if (magnitude >= 1e-3)
        return tr("%1 ms").arg(locale.toString(seconds * 1e3, 'f', magnitude >= 0.1 ? 0 : 1));
    return tr("%1 µs").arg(locale.toString(seconds * 1e6, 'f', 1));
}

QString ResultsText::durationWithInterval(double seconds,
                                          const std::optional<PredictionInterval> &interval)
{
    if (!interval || !std::isfinite(seconds))
        return duration(seconds);
    const double upS = interval->iteration.hiS - seconds;
    const double downS = seconds - interval->iteration.loS;
    const QString level = QLocale().toString(100 * interval->confidence, 'f', 0);
    // Within a tenth of each other, the larger side stands for both (as the CLI prints it).
    if (std::abs(upS - downS) <= 0.1 * std::max(upS, downS))
        return tr("%1 ± %2 (%3 %)").arg(duration(seconds), duration(std::max(upS, downS)), level);
    return tr("%1 (%2 %: %3)").arg(duration(seconds), level, range(interval->iteration));
}

QString ResultsText::range(const TimeInterval &interval)
{
    return duration(interval.loS) + QStringLiteral("–") + duration(interval.hiS);
}

QString ResultsText::extrapolated(const PredictionInterval &interval)
{
    const auto joined = [](const std::vector<std::string> &names) {
        QStringList list;
        for (const std::string &name : names)
            list << QString::fromStdString(name);
        return list.join(QStringLiteral(", "));
    };
    QStringList parts;
    if (!interval.extrapolatedGpuTypes.empty())
        parts << tr("GPU types %1").arg(joined(interval.extrapolatedGpuTypes));
    if (!interval.extrapolatedLinks.empty())
        parts << tr("link classes %1").arg(joined(interval.extrapolatedLinks));
    return parts.join(QStringLiteral("; "));
}

QString ResultsText::extrapolationNote(const std::optional<PredictionInterval> &interval)
{
    if (!interval || !interval->extrapolates())
        return {};
    return tr("Extrapolates (no measured figure): %1").arg(extrapolated(*interval));
}

QString ResultsText::percent(double fraction)
{
    return tr("%1 %").arg(QLocale().toString(100 * fraction, 'f', 1));
}

QString ResultsText::gib(double gib)
{
    return tr("%1 GiB").arg(QLocale().toString(gib, 'f', 1));
}

QString ResultsText::bandwidth(double gbps)
{
    return tr("%1 GB/s").arg(QLocale().toString(gbps, 'g', 3));
}

QStringList ResultsText::gpuNames(const Topology &topology, const std::vector<int> &gpus)
{
    QStringList names;
    for (int gpu : gpus)
        names << QString::fromStdString(topology.gpu(gpu).name);
    return names;
}

QString ResultsText::gpuList(const Topology &topology, const std::vector<int> &gpus)
{
    return gpuNames(topology, gpus).join(QStringLiteral(", "));
}

QStringList ResultsText::gpuTypes(const Topology &topology, const std::vector<int> &gpus)
{
    QStringList types;
    for (int gpu : gpus) {
        const QString type = QString::fromStdString(topology.gpuType(gpu).name);
        if (!types.contains(type))
            types << type;
    }
    return types;
}

QString ResultsText::pipelineName(Mode mode, int pipeline)
{
    return mode == Mode::Infer ? tr("Replica %1").arg(pipeline) : tr("Pipeline %1").arg(pipeline);
}

QString ResultsText::stageName(int stage)
{
    return tr("Stage %1").arg(stage);
}

QString ResultsText::layerRange(int layerBegin, int layerEnd)
{
    const int count = layerEnd - layerBegin;
    if (count == 1)
        return tr("%1 (1 layer)").arg(layerBegin);
    return tr("%1–%2 (%3 layers)").arg(layerBegin).arg(layerEnd - 1).arg(count);
}

QString ResultsText::targetName(const Cluster &cluster, const BandwidthTarget &target)
{
    switch (target.kind) {
    case BandwidthTarget::Kind::Network:
        return tr("All links between machines");
    case BandwidthTarget::Kind::Intra:
        return tr("All links inside machines");
    case BandwidthTarget::Kind::Link: {
        const Link &l = cluster.links[size_t(target.index)];
        return tr("Link %1 – %2").arg(QString::fromStdString(l.a), QString::fromStdString(l.b));
    }
    case BandwidthTarget::Kind::MachineIntra:
        return tr("Inside %1")
            .arg(QString::fromStdString(cluster.machines[size_t(target.index)].name));
    }
    return {};
}

QStringList ResultsText::breakdownParts()
{
    return {tr("Compute"), tr("TP comm"), tr("PP comm"), tr("DP comm"), tr("Bubble")};
}

std::vector<double> ResultsText::breakdownValues(const Breakdown &b)
{
    std::vector<double> values;
    values.reserve(std::size(kBreakdownPhases));
    for (const Phase phase : kBreakdownPhases)
        values.push_back(b.*phaseField(phase));
    return values;
}

std::vector<QColor> ResultsText::breakdownColors()
{
    return {QColor(0x4c, 0x72, 0xb0), QColor(0xdd, 0x84, 0x52), QColor(0x55, 0xa8, 0x68),
            QColor(0x81, 0x72, 0xb3), QColor(0xc4, 0xc4, 0xc4)};
}

QColor gpuTypeColor(const Topology &topology, int gpu)
{
    // Pastel hues far enough apart to tell eight types apart.
    static constexpr std::array<QRgb, 8> kPalette
        = {0xa6cee3, 0xb2df8a, 0xfdbf6f, 0xcab2d6, 0xfb9a99, 0xffff99, 0x8dd3c7, 0xd9d9d9};
    return QColor(kPalette[size_t(topology.gpu(gpu).typeIndex) % kPalette.size()]);
}

} // namespace hetplan::gui
