// The Help menu of the real window: About names the versions, the quick start is the README's,
// and the shortcuts table lists the window's real shortcuts.
#include "base/version.h"
#include "help/help_menu.h"
#include "mainwindow.h"
#include "results/results_panel.h"
#include "tests/test_registry.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>

using namespace hetplan;
using namespace hetplan::gui;

namespace {

HelpMenu *helpMenu(QMainWindow &window)
{
    for (QAction *a : window.menuBar()->actions())
        if (auto *menu = qobject_cast<HelpMenu *>(a->menu()))
            return menu;
    return nullptr;
}

// Triggers `action`, which opens a modal dialog, and hands the dialog to `inspect` before
// closing it.
void inspectDialog(QAction *action, const std::function<void(QDialog *)> &inspect)
{
    bool seen = false;
    QTimer::singleShot(0, [&] {
        auto *dialog = qobject_cast<QDialog *>(QApplication::activeModalWidget());
        if (dialog) {
            seen = true;
            inspect(dialog);
            dialog->reject();
        }
    });
    action->trigger();
    QVERIFY(seen);
}

} // namespace

class TestHelpMenu : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void helpMenuIsLast();
    void aboutNamesTheVersions();
    void quickStartIsTheReadmes();
    void shortcutsTableListsTheRealShortcuts();
};

void TestHelpMenu::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("HetPlanTest"));
    QSettings().clear();
}

void TestHelpMenu::helpMenuIsLast()
{
    MainWindow window;
    HelpMenu *help = helpMenu(window);
    QVERIFY(help);
    QCOMPARE(window.menuBar()->actions().last()->menu(), help);
    QVERIFY(help->actions().contains(help->aboutAction()));
    QVERIFY(help->actions().contains(help->quickStartAction()));
    QVERIFY(help->actions().contains(help->shortcutsAction()));
}

void TestHelpMenu::aboutNamesTheVersions()
{
    const QString about = HelpMenu::aboutText();
    QVERIFY2(!hetplan::kVersion.empty()
                 && about.contains(QString::fromUtf8(hetplan::kVersion.data(),
                                                     qsizetype(hetplan::kVersion.size()))),
             qPrintable(about));
    QVERIFY2(about.contains(QString::fromLatin1(qVersion())), qPrintable(about));
    QVERIFY2(about.contains(QLatin1String("<a href=")), qPrintable(about));

    MainWindow window;
    inspectDialog(helpMenu(window)->aboutAction(), [](QDialog *dialog) {
        QCOMPARE(dialog->windowTitle(), QStringLiteral("About HetPlan"));
    });
}

void TestHelpMenu::quickStartIsTheReadmes()
{
    const QString markdown = HelpMenu::quickStartMarkdown();
    // The README's section on the app: how to draw, plan and compare.
    QVERIFY2(markdown.startsWith(QLatin1String("## The desktop app")), qPrintable(markdown));
    QVERIFY2(markdown.contains(QLatin1String("**Plan** (F5)")), qPrintable(markdown));
    QVERIFY2(!markdown.contains(QLatin1String("## Other commands")), qPrintable(markdown));
    QVERIFY2(!markdown.contains(QLatin1String("![")), qPrintable(markdown));

    MainWindow window;
    inspectDialog(helpMenu(window)->quickStartAction(), [](QDialog *dialog) {
        auto *text = dialog->findChild<QTextBrowser *>();
        QVERIFY(text);
        QVERIFY(text->toPlainText().contains(QLatin1String("Compare")));
    });
}

void TestHelpMenu::shortcutsTableListsTheRealShortcuts()
{
    MainWindow window;
    const QList<ShortcutRow> rows = HelpMenu::shortcutRows(&window);
    const auto keysOf = [&](const QString &action) {
        for (const ShortcutRow &row : rows)
            if (row.action == action)
                return row.keys;
        return QString();
    };
    QCOMPARE(keysOf(QStringLiteral("Plan")),
             window.results()->planAction()->shortcut().toString(QKeySequence::NativeText));
    QCOMPARE(keysOf(QStringLiteral("Plan")), QStringLiteral("F5"));
    QCOMPARE(keysOf(QStringLiteral("Undo")), QKeySequence(QKeySequence::Undo).toString());
    // A shortcut changed at run time shows in the table: it is read from the actions.
    window.results()->planAction()->setShortcut(Qt::Key_F9);
    inspectDialog(helpMenu(window)->shortcutsAction(), [&](QDialog *dialog) {
        auto *table = dialog->findChild<QTableWidget *>();
        QVERIFY(table);
        QCOMPARE(table->rowCount(), int(HelpMenu::shortcutRows(&window).size()));
        bool found = false;
        for (int i = 0; i < table->rowCount(); ++i)
            found = found
                    || (table->item(i, 0)->text() == QLatin1String("Plan")
                        && table->item(i, 1)->text() == QLatin1String("F9"));
        QVERIFY(found);
    });
}

HETPLAN_TEST_MAIN(TestHelpMenu)
#include "tst_help_menu.moc"
