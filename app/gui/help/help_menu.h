#pragma once

#include <QList>
#include <QMenu>
#include <QString>

class QMainWindow;

namespace hetplan::gui {

// One row of the keyboard shortcuts table: what an action does and its keys, as the action
// itself has them, so the table cannot drift from the real shortcuts.
struct ShortcutRow
{
    QString action;
    QString keys;
};

// The window's Help menu: About HetPlan (versions, where the documentation is), the README's
// quick start for the app, and the keyboard shortcuts of every action of the window.
class HelpMenu : public QMenu
{
    Q_OBJECT

public:
    explicit HelpMenu(QMainWindow *window);

    QAction *aboutAction() const { return m_about; }
    QAction *quickStartAction() const { return m_quickStart; }
    QAction *shortcutsAction() const { return m_shortcuts; }

    // The About text: the HetPlan and Qt versions and the documentation link (HTML).
    static QString aboutText();
    // The README section on the desktop app, as Markdown (pictures left out: the README's
    // relative paths do not resolve inside the app).
    static QString quickStartMarkdown();
    // Every action of `window` (menus, toolbars, canvas) with a shortcut, sorted by name.
    static QList<ShortcutRow> shortcutRows(const QWidget *window);

private:
    void showAbout();
    void showQuickStart();
    void showShortcuts();
    void showReadme();
    void showMarkdown(const QString &title, const QString &markdown);
    // A modal dialog with `content` (which it takes) and a Close button.
    void showInDialog(const QString &title, QWidget *content, QSize size);

    QMainWindow *m_window; // Not owned; our parent.
    QAction *m_about = nullptr;
    QAction *m_quickStart = nullptr;
    QAction *m_shortcuts = nullptr;
};

} // namespace hetplan::gui
