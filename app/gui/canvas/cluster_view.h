#pragma once

#include <QGraphicsView>

#include <array>

class QAction;
class QLabel;

namespace hetplan::gui {

class ClusterScene;

// The canvas widget: zoom (Ctrl+wheel, Ctrl+= / Ctrl+-, fit with Ctrl+0), pan (middle drag,
// Space+drag, scroll bars), rubber-band selection, drops from the palette, and the edit
// actions with the shortcuts people expect. The actions are the view's: the window puts
// the same QAction objects in its menus and toolbars, so that each shortcut has one owner
// and works while the canvas has focus (Delete in an inspector field edits the field).
class ClusterView : public QGraphicsView
{
    Q_OBJECT

public:
    enum class Action {
        ZoomIn,
        ZoomOut,
        FitToWindow,
        AutoLayout,
        Cut,
        Copy,
        Paste,
        Duplicate,
        AddCopies,
        Delete,
        SelectAll,
        LinkTool, // checkable: L
        Count     // sentinel
    };

    ClusterView(ClusterScene *scene, QWidget *parent);

    ClusterScene *clusterScene() const { return m_scene; }
    QAction *action(Action which) const { return m_actions[static_cast<int>(which)]; }
    // Scale of scene units to device-independent pixels.
    double zoom() const;
    // Shown, centred over the canvas, while the cluster has no machine or switch.
    bool isEmptyHintVisible() const;

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    void setZoom(double zoom);
    void fitToWindow();
    // For a document just opened: fitted, but never so small the cards cannot be read.
    void showOpened();
    void autoLayout();
    void cut();
    void copy();
    // At the mouse pointer when it is over the canvas, else beside the copied nodes.
    void paste();
    void duplicate();
    // Asks how many copies, then adds them in a row.
    void addCopies();
    void deleteSelection();
    void selectAll();

Q_SIGNALS:
    void zoomChanged(double zoom);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void keyReleaseEvent(QKeyEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void changeEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    void createActions();
    void scaleBy(double factor);
    void fitWithin(double minZoom);
    void setSpacePan(bool on);
    void updateEmptyHint();

    ClusterScene *m_scene; // not owned
    std::array<QAction *, static_cast<int>(Action::Count)> m_actions{};
    bool m_middlePan = false;
    bool m_spacePan = false;
    QPoint m_lastPanPos;
    QLabel *m_emptyHint = nullptr;
};

} // namespace hetplan::gui
