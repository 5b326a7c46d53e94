#include "canvas/cluster_scene.h"

#include "canvas/auto_layout.h"
#include "canvas/canvas_clipboard.h"
#include "canvas/canvas_style.h"
#include "canvas/link_item.h"
#include "canvas/machine_item.h"
#include "canvas/machine_templates.h"
#include "canvas/switch_item.h"

#include <QApplication>
#include <QClipboard>
#include <QGraphicsLineItem>
#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QPainter>
#include <QPalette>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

namespace hetplan::gui {

namespace {

constexpr double kGridStep = 20;
constexpr double kSceneMargin = 1500;
constexpr double kRowGap = CanvasStyle::kMachineWidth / 5;
// Pasting the same clipboard again lands this much further down and to the right.
constexpr double kPasteStep = 40;

QPointF toPoint(CanvasPosition p)
{
    return {p.x, p.y};
}

bool sameParameters(const Link &x, const Link &y)
{
    return x.kind == y.kind && x.bandwidthGBps == y.bandwidthGBps && x.latencyUs == y.latencyUs;
}

} // namespace

ClusterScene::ClusterScene(ClusterModel *model, QObject *parent)
    : QGraphicsScene(parent)
    , m_model(model)
{
    Q_ASSERT(model);
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
    cancelLinkDrawing();
    finishMove();
    m_rebuilding = true;
    for (auto &[id, item] : m_items)
        delete item;
    m_items.clear();
    // Another document: its links set the next link's parameters afresh.
    m_shownLinks.clear();
    m_newLinkParameters.reset();
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
    case ItemKind::Link:
        item = new LinkItem(id);
        break;
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
        noteLinkParameters(id);
        static_cast<LinkItem *>(it->second)->refresh(*l, font());
        updateLinkEnds(id);
    }
    if (!m_rebuilding && !m_move)
        updateSceneRect();
}

void ClusterScene::removeItemFor(ItemId id)
{
    const auto it = m_items.find(id);
    if (it == m_items.end())
        return;
    if (m_linkTarget == it->second)
        m_linkTarget = nullptr;
    if (m_linkSource == id)
        cancelLinkDrawing();
    m_shownLinks.erase(id);
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

// --- Mouse: moving nodes and drawing links ---------------------------------------------------

void ClusterScene::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        // The second click of click-then-click linking.
        if (m_linkLine) {
            finishLink(event->scenePos());
            event->accept();
            return;
        }
        const ItemId node = nodeAt(event->scenePos());
        auto *item = static_cast<NodeItem *>(itemFor(node));
        if (item
            && (m_linkMode || (event->modifiers() & Qt::ShiftModifier)
                || item->isOnLinkRing(item->mapFromScene(event->scenePos()), item->viewScale()))) {
            startLink(node, event->scenePos());
            event->accept();
            return;
        }
    }
    QGraphicsScene::mousePressEvent(event);
    if (event->button() != Qt::LeftButton || (event->modifiers() & Qt::ControlModifier))
        return;
    const ItemId node = nodeAt(event->scenePos());
    if (!node || !itemFor(node)->isSelected())
        return;
    MoveDrag drag;
    drag.pressScenePos = event->scenePos();
    for (const ItemId id : selectedNodeIds()) {
        const QPointF p = itemFor(id)->pos();
        drag.start.push_back({id, {p.x(), p.y()}});
    }
    m_move = std::move(drag);
}

void ClusterScene::mouseMoveEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_linkLine) {
        m_linkLine->setLine(QLineF(m_linkLine->line().p1(), event->scenePos()));
        const ItemId target = nodeAt(event->scenePos());
        setLinkTarget(target && target != m_linkSource ? static_cast<NodeItem *>(itemFor(target))
                                                       : nullptr);
        event->accept();
        return;
    }
    if (m_move && (event->buttons() & Qt::LeftButton)) {
        const QPointF delta = event->scenePos() - m_move->pressScenePos;
        if (!m_move->moved && delta.manhattanLength() < QApplication::startDragDistance())
            return;
        std::vector<std::pair<ItemId, CanvasPosition>> positions;
        positions.reserve(m_move->start.size());
        for (const auto &[id, p] : m_move->start)
            positions.push_back({id, {std::round(p.x + delta.x()), std::round(p.y + delta.y())}});
        // One undo step per drag: the drag's moves merge inside a macro, which also keeps
        // them from merging with an earlier drag of the same nodes.
        if (!m_move->moved)
            m_model->undoStack()->beginMacro(tr("Move"));
        m_move->moved = true;
        m_model->moveNodes(positions, true);
        event->accept();
        return;
    }
    QGraphicsScene::mouseMoveEvent(event);
}

void ClusterScene::mouseReleaseEvent(QGraphicsSceneMouseEvent *event)
{
    if (m_linkLine && event->button() == Qt::LeftButton) {
        // Released where it started: a click, so the line follows the pointer to the next one.
        if (nodeAt(event->scenePos()) == m_linkSource)
            Q_EMIT linkHint(tr("Click the machine or switch to link to (Esc cancels)"));
        else
            finishLink(event->scenePos());
        event->accept();
        return;
    }
    finishMove();
    QGraphicsScene::mouseReleaseEvent(event);
}

void ClusterScene::finishMove()
{
    const bool moved = m_move && m_move->moved;
    m_move.reset();
    if (moved) {
        m_model->undoStack()->endMacro();
        updateSceneRect();
    }
}

void ClusterScene::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape && (m_linkLine || m_linkMode)) {
        // First the line being drawn, then the Link tool.
        if (m_linkLine)
            cancelLinkDrawing();
        else
            setLinkMode(false);
        event->accept();
        return;
    }
    QGraphicsScene::keyPressEvent(event);
}

void ClusterScene::startLink(ItemId source, QPointF scenePos)
{
    cancelLinkDrawing();
    m_linkSource = source;
    const QPointF from = itemFor(source)->pos();
    m_linkLine = new QGraphicsLineItem(QLineF(from, scenePos));
    QPen pen(palette().color(QPalette::Highlight), 2, Qt::DashLine, Qt::RoundCap);
    pen.setCosmetic(true);
    m_linkLine->setPen(pen);
    m_linkLine->setZValue(2);
    addItem(m_linkLine);
}

void ClusterScene::finishLink(QPointF scenePos)
{
    const ItemId source = m_linkSource;
    const ItemId target = nodeAt(scenePos);
    cancelLinkDrawing();
    if (!target || target == source || !m_model->kindOf(source)) {
        Q_EMIT linkHint(tr("No link drawn: release it over another machine or switch"));
        return;
    }
    Link params = MachineTemplates::defaultLink(m_model->machine(source), m_model->machine(target));
    if (m_newLinkParameters) {
        params.kind = m_newLinkParameters->kind;
        params.bandwidthGBps = m_newLinkParameters->bandwidthGBps;
        params.latencyUs = m_newLinkParameters->latencyUs;
    }
    if (const Result<ItemId> link = m_model->addLink(source, target, params)) {
        m_newLinkParameters = params;
        setSelectedIds({*link});
    }
}

void ClusterScene::noteLinkParameters(ItemId link)
{
    const Link *l = m_model->link(link);
    Q_ASSERT(l);
    const auto [shown, added] = m_shownLinks.try_emplace(link, *l);
    // A link that appears (opened, pasted, an undone removal) sets nothing; one whose
    // parameters change was edited, also by undo or redo of an edit.
    if (!added && !sameParameters(shown->second, *l))
        m_newLinkParameters = *l;
    shown->second = *l;
}

void ClusterScene::cancelLinkDrawing()
{
    setLinkTarget(nullptr);
    delete m_linkLine;
    m_linkLine = nullptr;
    m_linkSource = 0;
}

void ClusterScene::setLinkMode(bool on)
{
    if (m_linkMode == on)
        return;
    m_linkMode = on;
    if (!on)
        cancelLinkDrawing();
    Q_EMIT linkModeChanged(on);
    if (on)
        Q_EMIT linkHint(tr("Link tool: drag from one machine or switch to another, or click one "
                           "and then the other (Esc leaves the tool)"));
}

void ClusterScene::setLinkTarget(NodeItem *target)
{
    if (m_linkTarget == target)
        return;
    if (m_linkTarget)
        m_linkTarget->setLinkTarget(false);
    m_linkTarget = target;
    if (m_linkTarget)
        m_linkTarget->setLinkTarget(true);
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
    for (double x = left; x <= rect.right(); x += kGridStep)
        for (double y = top; y <= rect.bottom(); y += kGridStep)
            m_gridPoints.emplace_back(x, y);
    QPen pen(CanvasStyle::gridColor(palette()), 1.5);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->drawPoints(m_gridPoints.data(), static_cast<int>(m_gridPoints.size()));
}

} // namespace hetplan::gui
