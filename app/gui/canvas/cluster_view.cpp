#include "canvas/cluster_view.h"

#include "canvas/canvas_clipboard.h"
#include "canvas/canvas_style.h"
#include "canvas/cluster_scene.h"
#include "model/cluster_model.h"

#include <QAction>
#include <QDragEnterEvent>
#include <QGraphicsItem>
#include <QInputDialog>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QScrollBar>

#include <algorithm>
#include <cmath>

namespace hetplan::gui {

namespace {

constexpr double kMinZoom = 0.05;
constexpr double kMaxZoom = 4.0;
constexpr double kZoomStep = 1.25;
// Fit never enlarges past this: a single machine should not fill the screen.
constexpr double kMaxFitZoom = 1.5;
// A document opens no smaller than this: cards under ~75 px wide are unreadable, so a large
// cluster opens at its top-left corner with scroll bars for the rest (Fit to Window, or zoom
// out, shows it whole).
constexpr double kMinOpenZoom = 0.4;
constexpr double kFitMarginScene = 40;
constexpr int kMaxCopies = 256;

} // namespace

ClusterView::ClusterView(ClusterScene *scene, QWidget *parent)
    : QGraphicsView(scene, parent)
    , m_scene(scene)
{
    CanvasStyle::initResources();
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing
                   | QPainter::SmoothPixmapTransform);
    setDragMode(RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(AnchorUnderMouse);
    setResizeAnchor(AnchorViewCenter);
    setViewportUpdateMode(SmartViewportUpdate);
    // Items save and restore what they change themselves.
    setOptimizationFlag(DontSavePainterState);
    setAcceptDrops(true);
    setFocusPolicy(Qt::StrongFocus);
    createActions();

    // Over the viewport rather than in the scene: it stays centred whatever the zoom or scroll,
    // and clicks and drops go through it to the canvas.
    m_emptyHint = new QLabel(viewport());
    m_emptyHint->setObjectName(QStringLiteral("emptyCanvasHint"));
    m_emptyHint->setAlignment(Qt::AlignCenter);
    m_emptyHint->setWordWrap(true);
    m_emptyHint->setForegroundRole(QPalette::PlaceholderText);
    m_emptyHint->setAttribute(Qt::WA_TransparentForMouseEvents);
    m_emptyHint->setGeometry(viewport()->rect());
    connect(scene->model(), &ClusterModel::clusterChanged, this, &ClusterView::updateEmptyHint);
    updateEmptyHint();
}

bool ClusterView::isEmptyHintVisible() const
{
    return !m_emptyHint->isHidden();
}

void ClusterView::updateEmptyHint()
{
    m_emptyHint->setText(tr("Drag a machine from the palette to start"));
    const ClusterModel *model = m_scene->model();
    m_emptyHint->setVisible(model->machineIds().empty() && model->switchIds().empty());
}

void ClusterView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    m_emptyHint->setGeometry(viewport()->rect());
}

void ClusterView::createActions()
{
    const auto make = [this](Action which, const QString &text, const QList<QKeySequence> &keys,
                             const QString &icon, void (ClusterView::*slot)()) {
        auto *a = new QAction(text, this);
        a->setShortcuts(keys);
        // Only while the canvas has focus: Delete or Ctrl+A in a text field stay the field's.
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        if (!icon.isEmpty())
            a->setIcon(QIcon(icon));
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        m_actions[static_cast<int>(which)] = a;
    };
    make(Action::ZoomIn, tr("Zoom &In"),
         {QKeySequence::ZoomIn, QKeySequence(Qt::CTRL | Qt::Key_Equal)},
         QStringLiteral(":/icons/canvas/zoom-in.svg"), &ClusterView::zoomIn);
    make(Action::ZoomOut, tr("Zoom &Out"), {QKeySequence::ZoomOut},
         QStringLiteral(":/icons/canvas/zoom-out.svg"), &ClusterView::zoomOut);
    make(Action::FitToWindow, tr("&Fit to Window"), {QKeySequence(Qt::CTRL | Qt::Key_0)},
         QStringLiteral(":/icons/canvas/zoom-fit.svg"), &ClusterView::fitToWindow);
    make(Action::AutoLayout, tr("Auto &Layout"), {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L)},
         QStringLiteral(":/icons/canvas/auto-layout.svg"), &ClusterView::autoLayout);
    make(Action::Cut, tr("Cu&t"), {QKeySequence::Cut}, {}, &ClusterView::cut);
    make(Action::Copy, tr("&Copy"), {QKeySequence::Copy}, {}, &ClusterView::copy);
    make(Action::Paste, tr("&Paste"), {QKeySequence::Paste}, {}, &ClusterView::paste);
    make(Action::Duplicate, tr("&Duplicate"), {QKeySequence(Qt::CTRL | Qt::Key_D)}, {},
         &ClusterView::duplicate);
    make(Action::AddCopies, tr("Add &Copies…"), {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D)},
         {}, qOverload<>(&ClusterView::addCopies));
    make(Action::Delete, tr("De&lete"), {QKeySequence::Delete, QKeySequence(Qt::Key_Backspace)}, {},
         &ClusterView::deleteSelection);
    make(Action::SelectAll, tr("Select &All"), {QKeySequence::SelectAll}, {},
         &ClusterView::selectAll);
    QAction *link
        = new QAction(QIcon(QStringLiteral(":/icons/canvas/link.svg")), tr("&Link Tool"), this);
    link->setShortcut(Qt::Key_L);
    link->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    link->setCheckable(true);
    link->setToolTip(tr("Link tool (L): drag from one machine to another, or click both"));
    connect(link, &QAction::toggled, m_scene, &ClusterScene::setLinkMode);
    connect(m_scene, &ClusterScene::linkModeChanged, link, &QAction::setChecked);
    addAction(link);
    m_actions[static_cast<int>(Action::LinkTool)] = link;
}

double ClusterView::zoom() const
{
    return transform().m11();
}

void ClusterView::setZoom(double zoom)
{
    const double clamped = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (clamped == this->zoom())
        return;
    setTransform(QTransform::fromScale(clamped, clamped));
    Q_EMIT zoomChanged(clamped);
}

void ClusterView::scaleBy(double factor)
{
    setZoom(zoom() * factor);
}

void ClusterView::zoomIn()
{
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    scaleBy(kZoomStep);
    setTransformationAnchor(anchor);
}

void ClusterView::zoomOut()
{
    const ViewportAnchor anchor = transformationAnchor();
    setTransformationAnchor(AnchorViewCenter);
    scaleBy(1 / kZoomStep);
    setTransformationAnchor(anchor);
}

void ClusterView::fitToWindow()
{
    fitWithin(kMinZoom);
}

void ClusterView::showOpened()
{
    fitWithin(kMinOpenZoom);
}

void ClusterView::fitWithin(double minZoom)
{
    const QRectF content = m_scene->contentRect();
    if (content.isEmpty())
        return;
    const QRectF target
        = content.adjusted(-kFitMarginScene, -kFitMarginScene, kFitMarginScene, kFitMarginScene);
    fitInView(target, Qt::KeepAspectRatio);
    const double fitted = std::clamp(zoom(), minZoom, kMaxFitZoom);
    setTransform(QTransform::fromScale(fitted, fitted));
    const QSizeF visible = QSizeF(viewport()->size()) / fitted;
    if (visible.width() >= target.width() && visible.height() >= target.height())
        centerOn(target.center());
    else
        centerOn(target.topLeft() + QPointF(visible.width(), visible.height()) / 2);
    Q_EMIT zoomChanged(fitted);
}

void ClusterView::autoLayout()
{
    m_scene->autoLayout();
    fitToWindow();
}

void ClusterView::cut()
{
    m_scene->cutSelection();
}

void ClusterView::copy()
{
    m_scene->copySelection();
}

void ClusterView::paste()
{
    const QPoint cursor = viewport()->mapFromGlobal(QCursor::pos());
    if (viewport()->rect().contains(cursor) && underMouse())
        m_scene->pasteAt(mapToScene(cursor));
    else
        m_scene->paste();
}

void ClusterView::duplicate()
{
    m_scene->duplicateSelection();
}

void ClusterView::addCopies()
{
    if (m_scene->selectedIds().empty())
        return;
    bool ok = false;
    const int copies = QInputDialog::getInt(
        this, tr("Add Copies"), tr("Copies of the selection to add:"), 1, 1, kMaxCopies, 1, &ok);
    if (ok)
        m_scene->addCopies(copies);
}

void ClusterView::deleteSelection()
{
    m_scene->deleteSelection();
}

void ClusterView::selectAll()
{
    m_scene->selectAll();
}

// --- Zoom and pan ---------------------------------------------------------------------------

void ClusterView::wheelEvent(QWheelEvent *event)
{
    if (event->modifiers() & Qt::ControlModifier) {
        // 120 units per notch; one notch zooms by about 20 %.
        scaleBy(std::pow(1.0015, event->angleDelta().y()));
        event->accept();
        return;
    }
    QGraphicsView::wheelEvent(event);
}

void ClusterView::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::MiddleButton) {
        m_middlePan = true;
        m_lastPanPos = event->position().toPoint();
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void ClusterView::mouseMoveEvent(QMouseEvent *event)
{
    if (m_middlePan) {
        const QPoint pos = event->position().toPoint();
        const QPoint delta = pos - m_lastPanPos;
        m_lastPanPos = pos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        event->accept();
        return;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void ClusterView::mouseReleaseEvent(QMouseEvent *event)
{
    if (m_middlePan && event->button() == Qt::MiddleButton) {
        m_middlePan = false;
        viewport()->unsetCursor();
        event->accept();
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
}

void ClusterView::setSpacePan(bool on)
{
    if (m_spacePan == on)
        return;
    m_spacePan = on;
    // Without interaction a left drag pans even over a card.
    setInteractive(!on);
    setDragMode(on ? ScrollHandDrag : RubberBandDrag);
}

void ClusterView::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Space && !m_scene->isDrawingLink()) {
        if (!event->isAutoRepeat())
            setSpacePan(true);
        event->accept();
        return;
    }
    QGraphicsView::keyPressEvent(event);
}

void ClusterView::keyReleaseEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Space && !event->isAutoRepeat()) {
        setSpacePan(false);
        event->accept();
        return;
    }
    QGraphicsView::keyReleaseEvent(event);
}

void ClusterView::focusOutEvent(QFocusEvent *event)
{
    setSpacePan(false);
    QGraphicsView::focusOutEvent(event);
}

// --- Drops from the palette -----------------------------------------------------------------

void ClusterView::dragEnterEvent(QDragEnterEvent *event)
{
    if (hasFragment(event->mimeData()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void ClusterView::dragMoveEvent(QDragMoveEvent *event)
{
    if (hasFragment(event->mimeData()))
        event->acceptProposedAction();
    else
        event->ignore();
}

void ClusterView::dropEvent(QDropEvent *event)
{
    Result<Cluster> fragment = fragmentFromMime(event->mimeData());
    if (!fragment) {
        event->ignore();
        return;
    }
    const QPointF at = mapToScene(event->position().toPoint());
    if (m_scene->insertFragmentAt(*fragment, at))
        event->acceptProposedAction();
    else
        event->ignore();
    setFocus();
}

void ClusterView::contextMenuEvent(QContextMenuEvent *event)
{
    if (!isInteractive())
        return;
    // A right click on a card that is not selected acts on that card alone.
    const ItemId node = m_scene->nodeAt(mapToScene(event->pos()));
    if (node && !m_scene->itemFor(node)->isSelected())
        m_scene->setSelectedIds({node});
    if (m_scene->selectedIds().empty()) {
        QMenu menu(this);
        menu.addAction(action(Action::Paste));
        menu.addAction(action(Action::SelectAll));
        menu.addSeparator();
        menu.addAction(action(Action::AutoLayout));
        menu.addAction(action(Action::FitToWindow));
        menu.exec(event->globalPos());
        return;
    }
    QMenu menu(this);
    for (const Action a : {Action::Cut, Action::Copy, Action::Paste, Action::Duplicate,
                           Action::AddCopies, Action::Delete})
        menu.addAction(action(a));
    menu.exec(event->globalPos());
}

void ClusterView::changeEvent(QEvent *event)
{
    // The scene follows palette changes itself; a new widget style may change metrics.
    if (event->type() == QEvent::StyleChange)
        m_scene->restyle();
    if (event->type() == QEvent::LanguageChange)
        updateEmptyHint();
    QGraphicsView::changeEvent(event);
}

} // namespace hetplan::gui
