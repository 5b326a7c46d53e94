#include "canvas/palette.h"

#include "canvas/canvas_clipboard.h"
#include "canvas/canvas_style.h"

#include <QMimeData>

namespace hetplan::gui {

Palette::Palette(QWidget *parent)
    : QListWidget(parent)
    , m_templates(MachineTemplates::all())
{
    CanvasStyle::initResources();
    setDragEnabled(true);
    setDragDropMode(DragOnly);
    setDefaultDropAction(Qt::CopyAction);
    setSelectionMode(SingleSelection);
    setIconSize(QSize(32, 32));
    setSpacing(2);
    setUniformItemSizes(true);
    setToolTip(tr("Drag a machine or a switch onto the canvas"));
    for (const NodeTemplate &t : m_templates) {
        auto *item = new QListWidgetItem(QIcon(t.iconPath), t.title, this);
        item->setToolTip(t.toolTip);
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
    }
    connect(this, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const int r = row(item);
        if (r >= 0 && r < static_cast<int>(m_templates.size()))
            Q_EMIT templateActivated(m_templates[static_cast<size_t>(r)].fragment);
    });
}

QMimeData *Palette::mimeDataForRow(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_templates.size()))
        return nullptr;
    return mimeDataFor(m_templates[static_cast<size_t>(row)].fragment);
}

QStringList Palette::mimeTypes() const
{
    return {QString::fromLatin1(kNodesMimeType)};
}

QMimeData *Palette::mimeData(const QList<QListWidgetItem *> &items) const
{
    return items.isEmpty() ? nullptr : mimeDataForRow(row(items.first()));
}

} // namespace hetplan::gui
