#pragma once

#include "core/launch/preflight_report.h"
#include "core/model/gpu_type.h"

#include <QColor>
#include <QCoreApplication>
#include <QString>

#include <string_view>

class QPalette;

namespace hetplan::gui {

// How the canvas looks: colours come from the widget palette (so light and dark themes both
// work), with accent colours for GPU types and link kinds chosen to read on either.
class CanvasStyle
{
    Q_DECLARE_TR_FUNCTIONS(CanvasStyle)

public:
    // Sizes of the node cards in scene units; a node's model position is its centre.
    static constexpr double kMachineWidth = 184;
    static constexpr double kMachineHeight = 116;
    static constexpr double kSwitchWidth = 132;
    static constexpr double kSwitchHeight = 44;
    static constexpr double kConnectorRadius = 6;
    // More GPUs than this are drawn as a summary chip ("+56").
    static constexpr int kMaxDrawnGpus = 8;

    // Registers the canvas icons (canvas.qrc); every widget that shows them calls it.
    static void initResources();

    static QString linkKindName(LinkKind kind);
    static QString nicKindName(NicKind kind);
    static QString nicKindShortName(NicKind kind);
    // "200 GB/s", "0.7 GB/s", "25 µs": short, for labels on the canvas.
    static QString bandwidthText(double bandwidthGBps);
    static QString latencyText(double latencyUs);
    // "9.63×", "100×": how many times slower a link ran than assumed.
    static QString ratioText(double ratio);

    static QColor linkKindColor(LinkKind kind);
    // A pre-flight's verdict on a link: ok green, slow amber, hung and failed red.
    static QColor verdictColor(PreflightVerdict verdict);
    // Stable per GPU type name: one family keeps one colour in every cluster.
    static QColor gpuAccentColor(std::string_view gpuName);
    // Pen width in scene units, on a log scale so that 1, 25 and 300 GB/s all differ.
    static double linkWidth(double bandwidthGBps);

    static QColor cardColor(const QPalette &palette);
    static QColor cardBorderColor(const QPalette &palette);
    static QColor gridColor(const QPalette &palette);
};

} // namespace hetplan::gui
