// ClusterScene's edit commands on the selection: insert, delete, duplicate, clipboard and
// auto-layout. Each is one model edit, so one undo step. In a file of its own to keep
// cluster_scene.cpp to mirroring the model.
#include "canvas/auto_layout.h"
#include "canvas/canvas_clipboard.h"
#include "canvas/canvas_style.h"
#include "canvas/cluster_scene.h"
#include "canvas/machine_item.h"

#include <QApplication>
#include <QClipboard>

#include <cmath>

namespace hetplan::gui {

namespace {

constexpr double kRowGap = CanvasStyle::kMachineWidth / 5;
// Pasting the same clipboard again lands this much further down and to the right.
constexpr double kPasteStep = 40;

} // namespace

Result<std::vector<ItemId>> ClusterScene::insertFragmentAt(const Cluster &fragment,
                                                           QPointF scenePos)
{
    const QPointF offset = scenePos - fragmentCenter(fragment);
    Result<std::vector<ItemId>> added
        = m_model->insertFragment(fragment, CanvasPosition{offset.x(), offset.y()});
    if (added)
        setSelectedIds(*added);
    return added;
}

void ClusterScene::selectAll()
{
    std::vector<ItemId> all;
    for (const auto &[id, item] : m_items)
        all.push_back(id);
    setSelectedIds(all);
}

void ClusterScene::deleteSelection()
{
    const std::vector<ItemId> ids = selectedIds();
    if (!ids.empty())
        m_model->removeItems(ids);
}

void ClusterScene::duplicateSelection()
{
    duplicateNodes(1);
}

void ClusterScene::addCopies(int copies)
{
    if (copies > 0)
        duplicateNodes(copies);
}

void ClusterScene::duplicateNodes(int copies)
{
    const std::vector<ItemId> nodes = selectedNodeIds();
    if (nodes.empty())
        return;
    QRectF extent;
    for (const ItemId id : nodes)
        extent |= itemFor(id)->sceneBoundingRect();
    const std::vector<ItemId> added = m_model->duplicate(nodes, freeOffset(extent, copies), copies);
    setSelectedIds(added);
}

CanvasPosition ClusterScene::freeOffset(const QRectF &extent, int copies) const
{
    std::vector<QRectF> taken;
    for (const auto &[id, item] : m_items)
        if (item->type() == MachineItemType || item->type() == SwitchItemType)
            taken.push_back(item->sceneBoundingRect());
    // Copy k sits k offsets away, so copies never cover each other; the offset is the nearest
    // one (right, below, left, above, then further out) where no copy covers another card.
    const double stepX = std::round(extent.width() + kRowGap);
    const double stepY = std::round(extent.height() + kRowGap);
    const auto isFree = [&](QPointF offset) {
        for (int k = 1; k <= copies; ++k) {
            const QRectF copy = extent.translated(offset * k);
            for (const QRectF &card : taken)
                if (copy.intersects(card))
                    return false;
        }
        return true;
    };
    constexpr int kMaxSteps = 64;
    for (int r = 1; r <= kMaxSteps; ++r)
        for (const QPointF offset : {QPointF(r * stepX, 0), QPointF(0, r * stepY),
                                     QPointF(-r * stepX, 0), QPointF(0, -r * stepY)})
            if (isFree(offset))
                return {offset.x(), offset.y()};
    return {stepX, 0};
}

void ClusterScene::copySelection()
{
    const std::vector<ItemId> nodes = selectedNodeIds();
    if (nodes.empty())
        return;
    QApplication::clipboard()->setMimeData(mimeDataFor(m_model->fragment(nodes)));
    m_pasteCount = 0;
}

void ClusterScene::cutSelection()
{
    copySelection();
    const std::vector<ItemId> nodes = selectedNodeIds();
    if (!nodes.empty())
        m_model->removeItems(nodes);
}

void ClusterScene::paste()
{
    Result<Cluster> fragment = fragmentFromMime(QApplication::clipboard()->mimeData());
    if (!fragment) {
        Q_EMIT pasteRefused(QString::fromStdString(fragment.error().message));
        return;
    }
    ++m_pasteCount;
    const QPointF at = fragmentCenter(*fragment) + QPointF(kPasteStep, kPasteStep) * m_pasteCount;
    (void)insertFragmentAt(*fragment, at);
}

void ClusterScene::pasteAt(QPointF scenePos)
{
    Result<Cluster> fragment = fragmentFromMime(QApplication::clipboard()->mimeData());
    if (!fragment) {
        Q_EMIT pasteRefused(QString::fromStdString(fragment.error().message));
        return;
    }
    (void)insertFragmentAt(*fragment, scenePos);
}

void ClusterScene::autoLayout()
{
    const auto positions = autoLayoutPositions(*m_model);
    if (!positions.empty())
        m_model->moveNodes(positions, false);
}

} // namespace hetplan::gui
