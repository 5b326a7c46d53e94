#include "canvas/canvas_style.h"

#include <QLocale>
#include <QPalette>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

// Outside any namespace, as Q_INIT_RESOURCE requires.
static void initCanvasQrc()
{
    Q_INIT_RESOURCE(canvas);
}

namespace hetplan::gui {

void CanvasStyle::initResources()
{
    // The canvas resources live in a static library, whose unreferenced objects the linker
    // would drop; calling their initialiser keeps them. Repeated calls are harmless.
    initCanvasQrc();
}

QString CanvasStyle::linkKindName(LinkKind kind)
{
    switch (kind) {
    case LinkKind::NvLink:
        return tr("NVLink");
    case LinkKind::Pcie:
        return tr("PCIe");
    case LinkKind::Ethernet:
        return tr("Ethernet");
    case LinkKind::InfiniBand:
        return tr("InfiniBand");
    case LinkKind::Roce:
        return tr("RoCE");
    }
    return {};
}

QString CanvasStyle::nicKindName(NicKind kind)
{
    switch (kind) {
    case NicKind::Ethernet:
        return tr("Ethernet");
    case NicKind::InfiniBand:
        return tr("InfiniBand");
    case NicKind::Roce:
        return tr("RoCE");
    }
    return {};
}

QString CanvasStyle::nicKindShortName(NicKind kind)
{
    switch (kind) {
    case NicKind::Ethernet:
        return tr("Eth", "NIC badge");
    case NicKind::InfiniBand:
        return tr("IB", "NIC badge");
    case NicKind::Roce:
        return tr("RoCE", "NIC badge");
    }
    return {};
}

namespace {

// Three significant digits, never in exponent notation: "0.7", "12.5", "2039".
QString shortNumber(double value)
{
    if (std::abs(value) >= 100)
        return QLocale().toString(value, 'f', 0);
    return QLocale().toString(value, 'g', 3);
}

} // namespace

QString CanvasStyle::bandwidthText(double bandwidthGBps)
{
    //: Bandwidth label; %1 is a number in 1e9 bytes per second.
    return tr("%1 GB/s").arg(shortNumber(bandwidthGBps));
}

QString CanvasStyle::latencyText(double latencyUs)
{
    //: Latency label; %1 is a number of microseconds.
    return tr("%1 µs").arg(shortNumber(latencyUs));
}

QString CanvasStyle::ratioText(double ratio)
{
    //: A ratio; %1 is a number.
    return tr("%1×").arg(shortNumber(ratio));
}

QColor CanvasStyle::linkKindColor(LinkKind kind)
{
    // Mid-tone colours: enough contrast against both a white and a near-black canvas.
    switch (kind) {
    case LinkKind::NvLink:
        return {0x5f, 0xa8, 0x00};
    case LinkKind::Pcie:
        return {0x2f, 0x7f, 0xd0};
    case LinkKind::Ethernet:
        return {0x8a, 0x8f, 0x98};
    case LinkKind::InfiniBand:
        return {0xe0, 0x7b, 0x1a};
    case LinkKind::Roce:
        return {0xa8, 0x5c, 0xd6};
    }
    return Qt::gray;
}

QColor CanvasStyle::verdictColor(PreflightVerdict verdict)
{
    switch (verdict) {
    case PreflightVerdict::Ok:
        return {0x2e, 0x9d, 0x44};
    case PreflightVerdict::Slow:
        return {0xf0, 0xa0, 0x00};
    case PreflightVerdict::Hung:
    case PreflightVerdict::Failed:
        return {0xd9, 0x30, 0x25};
    }
    return Qt::red;
}

QColor CanvasStyle::gpuAccentColor(std::string_view gpuName)
{
    static constexpr std::array<QRgb, 10> kAccents = {
        0xff4caf50, 0xff26a69a, 0xff42a5f5, 0xff7e57c2, 0xffef6c00,
        0xffd81b60, 0xff8d6e63, 0xffc0a000, 0xff00acc1, 0xff5c6bc0,
    };
    // FNV-1a: stable across runs and platforms, unlike std::hash.
    std::uint32_t hash = 2166136261u;
    for (const char c : gpuName) {
        hash ^= static_cast<unsigned char>(c);
        hash *= 16777619u;
    }
    return QColor::fromRgba(kAccents[hash % kAccents.size()]);
}

double CanvasStyle::linkWidth(double bandwidthGBps)
{
    const double width = 1.0 + 2.0 * std::log10(1.0 + 10.0 * std::max(bandwidthGBps, 0.0));
    return std::clamp(width, 1.0, 9.0);
}

QColor CanvasStyle::cardColor(const QPalette &palette)
{
    return palette.color(QPalette::Base);
}

QColor CanvasStyle::cardBorderColor(const QPalette &palette)
{
    return palette.color(QPalette::Mid);
}

QColor CanvasStyle::gridColor(const QPalette &palette)
{
    QColor c = palette.color(QPalette::Text);
    c.setAlphaF(0.18f);
    return c;
}

} // namespace hetplan::gui
