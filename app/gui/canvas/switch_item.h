#pragma once

#include "canvas/node_item.h"

#include <QFont>
#include <QString>

namespace hetplan::gui {

// A network switch card: a switch glyph and its name.
class SwitchItem : public NodeItem
{
public:
    explicit SwitchItem(ItemId id);

    int type() const override { return SwitchItemType; }

    void refresh(const Switch &networkSwitch, const QFont &font);

    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QFont m_font;
    QString m_title;
};

} // namespace hetplan::gui
