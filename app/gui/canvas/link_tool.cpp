#include "canvas/link_tool.h"

#include "canvas/cluster_scene.h"
#include "canvas/machine_templates.h"
#include "canvas/node_item.h"

#include <QCoreApplication>
#include <QGraphicsLineItem>
#include <QGraphicsSceneMouseEvent>
#include <QKeyEvent>
#include <QPalette>
#include <QPen>

namespace hetplan::gui {

namespace {

bool sameParameters(const Link &x, const Link &y)
{
    return x.kind == y.kind && x.bandwidthGBps == y.bandwidthGBps && x.latencyUs == y.latencyUs;
}

} // namespace

LinkTool::LinkTool(ClusterScene *scene, ClusterModel *model)
    : QObject(scene)
    , m_scene(scene)
    , m_model(model)
{}

bool LinkTool::press(QGraphicsSceneMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return false;
    // The second click of click-then-click linking.
    if (m_line) {
        finish(event->scenePos());
        event->accept();
        return true;
    }
    const ItemId node = m_scene->nodeAt(event->scenePos());
    auto *item = static_cast<NodeItem *>(m_scene->itemFor(node));
    if (item
        && (m_linkMode || (event->modifiers() & Qt::ShiftModifier)
            || item->isOnLinkRing(item->mapFromScene(event->scenePos()), item->viewScale()))) {
        start(node, event->scenePos());
        event->accept();
        return true;
    }
    return false;
}

bool LinkTool::move(QGraphicsSceneMouseEvent *event)
{
    if (!m_line)
        return false;
    m_line->setLine(QLineF(m_line->line().p1(), event->scenePos()));
    const ItemId target = m_scene->nodeAt(event->scenePos());
    setTarget(target && target != m_source ? static_cast<NodeItem *>(m_scene->itemFor(target))
                                           : nullptr);
    event->accept();
    return true;
}

bool LinkTool::release(QGraphicsSceneMouseEvent *event)
{
    if (!m_line || event->button() != Qt::LeftButton)
        return false;
    // Released where it started: a click, so the line follows the pointer to the next one.
    // The hints keep the scene's translation context, where the shipped translations have
    // them.
    if (m_scene->nodeAt(event->scenePos()) == m_source)
        Q_EMIT linkHint(QCoreApplication::translate(
            "hetplan::gui::ClusterScene", "Click the machine or switch to link to (Esc cancels)"));
    else
        finish(event->scenePos());
    event->accept();
    return true;
}

bool LinkTool::keyPress(QKeyEvent *event)
{
    if (event->key() != Qt::Key_Escape || (!m_line && !m_linkMode))
        return false;
    // First the line being drawn, then the Link tool.
    if (m_line)
        cancel();
    else
        setLinkMode(false);
    event->accept();
    return true;
}

void LinkTool::start(ItemId source, QPointF scenePos)
{
    cancel();
    m_source = source;
    const QPointF from = m_scene->itemFor(source)->pos();
    m_line = new QGraphicsLineItem(QLineF(from, scenePos));
    QPen pen(m_scene->palette().color(QPalette::Highlight), 2, Qt::DashLine, Qt::RoundCap);
    pen.setCosmetic(true);
    m_line->setPen(pen);
    m_line->setZValue(2);
    m_scene->addItem(m_line);
}

void LinkTool::finish(QPointF scenePos)
{
    const ItemId source = m_source;
    const ItemId target = m_scene->nodeAt(scenePos);
    cancel();
    if (!target || target == source || !m_model->kindOf(source)) {
        Q_EMIT linkHint(QCoreApplication::translate(
            "hetplan::gui::ClusterScene",
            "No link drawn: release it over another machine or switch"));
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
        m_scene->setSelectedIds({*link});
    }
}

void LinkTool::noteLinkParameters(ItemId link)
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

void LinkTool::forget(ItemId id, const QGraphicsItem *item)
{
    if (m_target == item)
        m_target = nullptr;
    if (m_source == id)
        cancel();
    m_shownLinks.erase(id);
}

void LinkTool::reset()
{
    cancel();
    m_shownLinks.clear();
    m_newLinkParameters.reset();
}

void LinkTool::cancel()
{
    setTarget(nullptr);
    delete m_line;
    m_line = nullptr;
    m_source = 0;
}

void LinkTool::setLinkMode(bool on)
{
    if (m_linkMode == on)
        return;
    m_linkMode = on;
    if (!on)
        cancel();
    Q_EMIT linkModeChanged(on);
    if (on)
        Q_EMIT linkHint(QCoreApplication::translate(
            "hetplan::gui::ClusterScene",
            "Link tool: drag from one machine or switch to another, or click one "
            "and then the other (Esc leaves the tool)"));
}

void LinkTool::setTarget(NodeItem *target)
{
    if (m_target == target)
        return;
    if (m_target)
        m_target->setLinkTarget(false);
    m_target = target;
    if (m_target)
        m_target->setLinkTarget(true);
}

} // namespace hetplan::gui
