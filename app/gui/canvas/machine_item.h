#pragma once

#include "canvas/node_item.h"

#include <QColor>
#include <QFont>
#include <QString>

#include <vector>

namespace hetplan::gui {

// A machine card: name, NIC badge, "count× GPU type", its GPUs as chips joined by the
// intra-machine link (summarised past CanvasStyle::kMaxDrawnGpus), and the link's kind and
// bandwidth.
class MachineItem : public NodeItem
{
public:
    explicit MachineItem(ItemId id);

    int type() const override { return MachineItemType; }

    // Rebuilds the texts shown from the model's machine; `font` is the scene's.
    void refresh(const Machine &machine, const QFont &font);
    // GPUs drawn emphasised (e.g. a plan stage's), by index inside the machine.
    void setHighlightedGpus(std::vector<int> localIndexes);

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    void paintGpus(QPainter *painter, const QRectF &area) const;

    // Display cache: texts laid out once per model change, not per paint.
    QFont m_titleFont;
    QFont m_textFont;
    QFont m_smallFont;
    QString m_title;
    QString m_gpuText;
    QString m_intraText;
    QString m_nicText;
    QColor m_accent;
    QColor m_intraColor;
    double m_intraWidth = 1;
    int m_gpuCount = 0;
    std::vector<int> m_highlighted;
};

} // namespace hetplan::gui
