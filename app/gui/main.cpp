#include "mainwindow.h"
#include "translations.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

namespace {

// --screenshot FILE: show the window, let it lay out and paint, save it as an image, quit.
// Used for the documentation's screenshots (scripts/screenshot.sh).
void scheduleScreenshot(hetplan::gui::MainWindow &window, const QString &path)
{
    QTimer::singleShot(1500, &window, [&window, path] {
        const bool saved = window.grab().save(path);
        QApplication::exit(saved ? 0 : 1);
    });
}

} // namespace

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("HetPlan"));
    QApplication::setOrganizationName(QStringLiteral("HetPlan"));
    QApplication::setApplicationVersion(QStringLiteral(HETPLAN_VERSION));
    QApplication::setDesktopFileName(QStringLiteral("hetplan"));
    hetplan::gui::installTranslations(hetplan::gui::languageSetting());

    QCommandLineParser parser;
    parser.setApplicationDescription(QApplication::translate(
        "main", "Designs heterogeneous GPU clusters and plans LLM training and serving on them."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QApplication::translate("main", "A project or cluster file."),
                                 QStringLiteral("[file]"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Save a picture of the window to <image> and quit."),
        QStringLiteral("image"));
    parser.addOption(screenshot);
    parser.process(app);

    hetplan::gui::MainWindow window;
    const QStringList files = parser.positionalArguments();
    const bool opened = !files.isEmpty() && window.openFile(files.front());
    if (!opened && parser.isSet(screenshot))
        window.openExample(QStringLiteral("case-study")); // no recovery question in pictures
    else if (!opened)
        window.openStartDocument();
    window.show();
    if (parser.isSet(screenshot))
        scheduleScreenshot(window, parser.value(screenshot));
    return QApplication::exec();
}
