// Every shipped translation is finished, the designer's covers every string of its sources,
// and the embedded .qm files load.
#include "tests/test_registry.h"
#include "translations.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

namespace {

const QString kSourceDir = QStringLiteral(HETPLAN_SOURCE_DIR);
const QString kLupdate = QStringLiteral(HETPLAN_LUPDATE);

struct Message
{
    QString context;
    QString source;
    bool finished = false; // translated and not marked unfinished
};

// The messages of a .ts file; `error` says what made it unreadable.
QList<Message> readTs(const QString &path, QString &error)
{
    QList<Message> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        error = file.errorString();
        return messages;
    }
    QXmlStreamReader xml(&file);
    QString context;
    Message current;
    QString translation;
    bool unfinished = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("name")) {
                context = xml.readElementText();
            } else if (name == QLatin1String("message")) {
                current = {context, {}, false};
                translation.clear();
                unfinished = false;
            } else if (name == QLatin1String("source")) {
                current.source = xml.readElementText();
            } else if (name == QLatin1String("translation")) {
                const QString type = xml.attributes().value(QLatin1String("type")).toString();
                unfinished = type == QLatin1String("unfinished");
                // Obsolete ("vanished") messages are never shown; they do not count.
                if (type == QLatin1String("vanished") || type == QLatin1String("obsolete"))
                    current.source.clear();
                translation = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            current.finished = !unfinished && !translation.trimmed().isEmpty();
            if (!current.source.isEmpty())
                messages << current;
        }
    }
    if (xml.hasError())
        error = xml.errorString();
    return messages;
}

// The designer's part of the app: everything under app/gui but the canvas, the inspector and
// the results, which keep their own .ts files (app/gui/CMakeLists.txt, update-translations).
QStringList designerSources()
{
    const QDir gui(kSourceDir + QStringLiteral("/app/gui"));
    QStringList paths;
    for (const QFileInfo &entry : gui.entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot)) {
        static const QStringList others
            = {QStringLiteral("canvas"), QStringLiteral("inspector"), QStringLiteral("results")};
        if (!others.contains(entry.fileName()))
            paths << entry.absoluteFilePath();
    }
    return paths;
}

} // namespace

class TestTranslations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyTranslationIsFinished_data();
    void everyTranslationIsFinished();
    void designerTranslationCoversItsSources();
    void embeddedTranslationsLoad();
};

void TestTranslations::everyTranslationIsFinished_data()
{
    QTest::addColumn<QString>("path");
    const QDir dir(kSourceDir + QStringLiteral("/translations"));
    const QStringList files = dir.entryList({QStringLiteral("*.ts")}, QDir::Files);
    QVERIFY(files.contains(QStringLiteral("hetplan_designer_zh_CN.ts")));
    for (const QString &file : files)
        QTest::newRow(qPrintable(file)) << dir.filePath(file);
}

void TestTranslations::everyTranslationIsFinished()
{
    QFETCH(QString, path);
    QString error;
    const QList<Message> messages = readTs(path, error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(!messages.isEmpty());
    QStringList unfinished;
    for (const Message &m : messages)
        if (!m.finished)
            unfinished << m.context + QStringLiteral(": ") + m.source;
    QVERIFY2(unfinished.isEmpty(), qPrintable(unfinished.join(QLatin1Char('\n'))));
}

void TestTranslations::designerTranslationCoversItsSources()
{
    if (!QFile::exists(kLupdate))
        QSKIP("lupdate is not installed (Debian: qt6-l10n-tools)");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString fresh = dir.filePath(QStringLiteral("fresh_zh_CN.ts"));
    QProcess lupdate;
    lupdate.start(kLupdate, designerSources()
                                << QStringLiteral("-I") << kSourceDir + QStringLiteral("/app/gui")
                                << QStringLiteral("-silent") << QStringLiteral("-locations")
                                << QStringLiteral("none") << QStringLiteral("-ts") << fresh);
    QVERIFY(lupdate.waitForFinished(120000));
    QCOMPARE(lupdate.exitCode(), 0);

    QString error;
    const QList<Message> wanted = readTs(fresh, error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(wanted.size() > 50);
    QSet<QString> shipped;
    for (const Message &m : readTs(kSourceDir
                                       + QStringLiteral("/translations/"
                                                        "hetplan_designer_zh_CN.ts"),
                                   error))
        if (m.finished)
            shipped.insert(m.context + QLatin1Char('\x1f') + m.source);
    QStringList missing;
    for (const Message &m : wanted)
        if (!shipped.contains(m.context + QLatin1Char('\x1f') + m.source))
            missing << m.context + QStringLiteral(": ") + m.source;
    QVERIFY2(missing.isEmpty(),
             qPrintable(QStringLiteral("not translated (run the update-translations target, "
                                       "then translate):\n")
                        + missing.join(QLatin1Char('\n'))));
}

void TestTranslations::embeddedTranslationsLoad()
{
    const QStringList loaded = hetplan::gui::installTranslations(QStringLiteral("zh_CN"));
    QVERIFY2(loaded.contains(QStringLiteral("hetplan_designer_zh_CN.qm")),
             qPrintable(loaded.join(QLatin1Char(' '))));
    QCOMPARE(QCoreApplication::translate("hetplan::gui::MainWindow", "&File"),
             QStringLiteral("文件(&F)"));
    // Qt's own dialogs too (Debian: qt6-translations-l10n): standard buttons read in Chinese.
    QVERIFY2(loaded.contains(QStringLiteral("qtbase_zh_CN")),
             qPrintable(loaded.join(QLatin1Char(' '))));
    QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), QStringLiteral("取消"));
    QVERIFY(hetplan::gui::installTranslations(QStringLiteral("en")).isEmpty());
}

HETPLAN_TEST_MAIN(TestTranslations)
#include "tst_translations.moc"
