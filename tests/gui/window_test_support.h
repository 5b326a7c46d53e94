#pragma once

// Shared by the tests that drive the whole main window: menus, planning as the Plan button
// does, and settings of their own.

#include "mainwindow.h"
#include "results/planning_controller.h"
#include "results/results_panel.h"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTimer>

#include <functional>
#include <memory>

namespace hetplan::gui::test {

// Generous: a debug build plans the bundled examples in seconds.
constexpr int kPlanTimeoutMs = 120'000;

// Settings and autosaves of the test's own, empty: the first-start layout, no recent files.
inline void useTestSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

// A File menu action by its text (in `submenu`, e.g. "Open E&xample"), as a person finds it.
inline QAction *fileAction(QMainWindow &window, const QString &text, const QString &submenu = {})
{
    for (QAction *menu : window.menuBar()->actions()) {
        if (!menu->menu() || menu->text() != QLatin1String("&File"))
            continue;
        for (QAction *a : menu->menu()->actions()) {
            if (submenu.isEmpty() && a->text() == text)
                return a;
            if (a->menu() && a->text() == submenu)
                for (QAction *item : a->menu()->actions())
                    if (item->text() == text)
                        return item;
        }
    }
    return nullptr;
}

// Presses Plan and waits for the result; false when planning did not finish in time.
inline bool planAndWait(MainWindow &window)
{
    ResultsPanel *results = window.results();
    if (!results->planAction()->isEnabled())
        return false;
    QSignalSpy finished(results->controller(), &PlanningController::finished);
    results->planAction()->trigger();
    return (!finished.isEmpty() || finished.wait(kPlanTimeoutMs)) && results->shownPlan();
}

// Runs `answer` on the next modal widget of type T once it is open (a dialog's exec() or
// open() returns only after the test has answered it).
template<typename T>
void whenModal(QObject *context, std::function<void(T *)> answer)
{
    auto poll = std::make_shared<std::function<void()>>();
    *poll = [context, answer, poll] {
        if (auto *modal = qobject_cast<T *>(QApplication::activeModalWidget()))
            answer(modal);
        else
            QTimer::singleShot(10, context, *poll);
    };
    QTimer::singleShot(0, context, *poll);
}

} // namespace hetplan::gui::test
