#include "canvas/cluster_scene.h"

#include "canvas/canvas_style.h"
#include "canvas/link_item.h"
#include "canvas/link_tool.h"
#include "canvas/machine_item.h"
#include "canvas/switch_item.h"

#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QPalette>

#include <algorithm>
#include <cmath>

namespace hetplan::gui {

namespace {

constexpr double kGridStep = 20;
constexpr double kSceneMargin = 1500;

QPointF toPoint(CanvasPosition p)
{
    return {p.x, p.y};
}

} // namespace

ClusterScene::ClusterScene(ClusterModel *model, QObject *parent)
    : QGraphicsScene(parent)
    , m_model(model)
    , m_moveTool(this, model)
    , m_linkTool(new LinkTool(this, model))
{
    Q_ASSERT(model);
    connect(m_linkTool, &LinkTool::linkModeChanged, this, &ClusterScene::linkModeChanged);
    connect(m_linkTool, &LinkTool::linkHint, this, &ClusterScene::linkHint);
    // Cards are few and mostly still; the BSP index answers hit tests and exposure fast.
    setItemIndexMethod(BspTreeIndex);
    connect(model, &ClusterModel::modelReset, this, &ClusterScene::rebuild);
    connect(model, &ClusterModel::itemAdded, this, &ClusterScene::addItemFor);
    connect(model, &ClusterModel::itemChanged, this, &ClusterScene::refreshItem);
    connect(model, &ClusterModel::itemRemoved, this, &ClusterScene::removeItemFor);
    connect(this, &QGraphicsScene::selectionChanged, this, &ClusterScene::emitSelection);
    rebuild();
}

ClusterScene::~ClusterScene()
{
    finishMove();
}

void ClusterScene::rebuild()
{
    m_linkTool->reset();
    finishMove();
    m_rebuilding = true;
    for (auto &[id, item] : m_items)
        delete item;
    m_items.clear();
    for (const ItemId id : m_model->machineIds())
        addItemFor(id);
    for (const ItemId id : m_model->switchIds())
        addItemFor(id);
    for (const ItemId id : m_model->linkIds())
        addItemFor(id);
    m_rebuilding = false;
    updateSceneRect();
    emitSelection();
}

void ClusterScene::addItemFor(ItemId id)
{
    const std::optional<ItemKind> kind = m_model->kindOf(id);
    if (!kind || m_items.contains(id))
        return;
    QGraphicsItem *item = nullptr;
    switch (*kind) {
    case ItemKind::Machine:
        item = new MachineItem(id);
        break;
    case ItemKind::Switch:
        item = new SwitchItem(id);
        break;
    case ItemKind::Link: {
        auto *link = new LinkItem(id);
        if (const auto it = m_linkVerdicts.find(id); it != m_linkVerdicts.end())
            link->setVerdict(it->second);
        item = link;
        break;
    }
    }
    m_items.emplace(id, item);
    addItem(item);
    refreshItem(id);
}

void ClusterScene::refreshItem(ItemId id)
{
    const auto it = m_items.find(id);
    if (it == m_items.end())
        return;
    if (const Machine *m = m_model->machine(id)) {
        auto *item = static_cast<MachineItem *>(it->second);
        item->refresh(*m, font());
        item->setPos(toPoint(m->position));
        updateLinksOf(id);
    } else if (const Switch *s = m_model->networkSwitch(id)) {
        auto *item = static_cast<SwitchItem *>(it->second);
        item->refresh(*s, font());
        item->setPos(toPoint(s->position));
        updateLinksOf(id);
    } else if (const Link *l = m_model->link(id)) {
        m_linkTool->noteLinkParameters(id);
        static_cast<LinkItem *>(it->second)->refresh(*l, font());
        updateLinkEnds(id);
    }
    if (!m_rebuilding && !m_moveTool.isMoving())
        updateSceneRect();
}

void ClusterScene::removeItemFor(ItemId id)
{
    const auto it = m_items.find(id);
    if (it == m_items.end())
        return;
    m_linkTool->forget(id, it->second);
    delete it->second;
    m_items.erase(it);
}

void ClusterScene::updateLinkEnds(ItemId link)
{
    const auto it = m_items.find(link);
    if (it == m_items.end())
        return;
    const auto [a, b] = m_model->linkEnds(link);
    const auto *itemA = static_cast<const NodeItem *>(itemFor(a));
    const auto *itemB = static_cast<const NodeItem *>(itemFor(b));
    // An end that is not built yet (links restored before their nodes) is set when it is.
    if (!itemA || !itemB)
        return;
    const bool machineA = itemA->type() == MachineItemType;
    const bool machineB = itemB->type() == MachineItemType;
    static_cast<LinkItem *>(it->second)
        ->setEnds(itemA->pos(), itemB->pos(), itemA->cardRect().size(), itemB->cardRect().size(),
                  machineA && !machineB, machineB && !machineA);
}

void ClusterScene::updateLinksOf(ItemId node)
{
    for (const ItemId link : m_model->linksOf(node))
        updateLinkEnds(link);
}

void ClusterScene::updateSceneRect()
{
    const QRectF content = contentRect();
    const QRectF base = content.isNull() ? QRectF(0, 0, 1, 1) : content;
    setSceneRect(base.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
}

QGraphicsItem *ClusterScene::itemFor(ItemId id) const
{
    const auto it = m_items.find(id);
    return it == m_items.end() ? nullptr : it->second;
}

ItemId ClusterScene::nodeAt(QPointF scenePos) const
{
    for (QGraphicsItem *item : items(scenePos)) {
        if (item->type() == MachineItemType || item->type() == SwitchItemType)
            return static_cast<NodeItem *>(item)->id();
    }
    return 0;
}

QRectF ClusterScene::contentRect() const
{
    QRectF rect;
    for (const auto &[id, item] : m_items)
        if (item->type() != LinkItemType)
            rect |= item->sceneBoundingRect();
    return rect;
}

std::vector<ItemId> ClusterScene::selectedIds() const
{
    std::vector<ItemId> ids;
    for (const auto &[id, item] : m_items)
        if (item->isSelected())
            ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    return ids;
}

std::vector<ItemId> ClusterScene::selectedNodeIds() const
{
    std::vector<ItemId> ids = selectedIds();
    std::erase_if(ids, [&](ItemId id) { return m_model->kindOf(id) == ItemKind::Link; });
    return ids;
}

void ClusterScene::setSelectedIds(const std::vector<ItemId> &ids)
{
    QSignalBlocker blocker(this);
    clearSelection();
    for (const ItemId id : ids)
        if (QGraphicsItem *item = itemFor(id))
            item->setSelected(true);
    blocker.unblock();
    emitSelection();
}

void ClusterScene::emitSelection()
{
    if (!m_rebuilding)
        Q_EMIT selectionChangedIds(selectedIds());
}

void ClusterScene::setHighlightedGpus(const std::vector<std::string> &gpuNames)
{
    std::unordered_map<std::string, std::vector<int>> byMachine;
    for (const std::string &gpu : gpuNames) {
        const std::size_t colon = gpu.rfind(':');
        if (colon == std::string::npos)
            continue;
        byMachine[gpu.substr(0, colon)].push_back(std::atoi(gpu.c_str() + colon + 1));
    }
    for (const ItemId id : m_model->machineIds()) {
        const auto it = byMachine.find(m_model->machine(id)->name);
        if (auto *item = static_cast<MachineItem *>(itemFor(id)))
            item->setHighlightedGpus(it == byMachine.end() ? std::vector<int>{} : it->second);
    }
}

void ClusterScene::setLinkVerdicts(const std::map<int, LinkVerdict> &byLinkIndex)
{
    m_linkVerdicts.clear();
    const std::vector<ItemId> links = m_model->linkIds();
    for (const auto &[index, verdict] : byLinkIndex)
        if (index >= 0 && index < int(links.size()))
            m_linkVerdicts[links[std::size_t(index)]] = verdict;
    for (const ItemId id : links) {
        auto *item = static_cast<LinkItem *>(itemFor(id));
        const auto it = m_linkVerdicts.find(id);
        if (item)
            item->setVerdict(it == m_linkVerdicts.end() ? std::nullopt : std::optional(it->second));
    }
}

void ClusterScene::restyle()
{
    for (const auto &[id, item] : m_items) {
        refreshItem(id);
        item->update();
    }
    update();
}

bool ClusterScene::event(QEvent *event)
{
    // The cards cache their pixels; a new palette (light/dark switch) or font redraws them.
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        restyle();
    return QGraphicsScene::event(event);
}

// --- Mouse and keys: the link tool first, then moving nodes -----------------------------------

void ClusterScene::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_linkTool->press(event))
        return;
    QGraphicsScene::mousePressEvent(event);
    m_moveTool.press(event);
}

void ClusterScene::mouseMoveEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_linkTool->move(event) || m_moveTool.move(event))
        return;
    QGraphicsScene::mouseMoveEvent(event);
}

void ClusterScene::mouseReleaseEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_linkTool->release(event))
        return;
    finishMove();
    QGraphicsScene::mouseReleaseEvent(event);
}

void ClusterScene::finishMove()
{
    // refreshItem leaves the scene rect alone during a drag; it catches up once, here.
    if (m_moveTool.finish())
        updateSceneRect();
}

void ClusterScene::keyPressEvent(QKeyEvent *event)
{
    if (!m_linkTool->keyPress(event))
        QGraphicsScene::keyPressEvent(event);
}

bool ClusterScene::isDrawingLink() const
{
    return m_linkTool->isDrawing();
}

bool ClusterScene::linkMode() const
{
    return m_linkTool->linkMode();
}

const std::optional<Link> &ClusterScene::newLinkParameters() const
{
    return m_linkTool->newLinkParameters();
}

void ClusterScene::cancelLinkDrawing()
{
    m_linkTool->cancel();
}

void ClusterScene::setLinkMode(bool on)
{
    m_linkTool->setLinkMode(on);
}

// A dot grid; skipped when zoomed out so far that the dots would merge into a tint.
void ClusterScene::drawBackground(QPainter *painter, const QRectF &rect)
{
    painter->fillRect(rect, palette().color(QPalette::Window));
    const double pixelsPerStep = kGridStep * painter->worldTransform().m11();
    if (pixelsPerStep < 8)
        return;
    const double left = std::floor(rect.left() / kGridStep) * kGridStep;
    const double top = std::floor(rect.top() / kGridStep) * kGridStep;
    m_gridPoints.clear();
    const int columns = static_cast<int>(std::floor((rect.right() - left) / kGridStep)) + 1;
    const int rows = static_cast<int>(std::floor((rect.bottom() - top) / kGridStep)) + 1;
    for (int column = 0; column < columns; ++column)
        for (int row = 0; row < rows; ++row)
            m_gridPoints.emplace_back(left + column * kGridStep, top + row * kGridStep);
    QPen pen(CanvasStyle::gridColor(palette()), 1.5);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->drawPoints(m_gridPoints.data(), static_cast<int>(m_gridPoints.size()));
}

} // namespace hetplan::gui
