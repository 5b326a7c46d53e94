// readTextFile and writeFileAtomic: what a person sees when a file is missing, a folder or
// too large, and that a failed save never damages the file it was replacing.
#include "core/io/files.h"
#include "tests/test_registry.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstdlib>
#include <sys/resource.h>
#include <sys/stat.h>

using namespace hetplan;

namespace {

std::string pathIn(const QTemporaryDir &dir, const char *name)
{
    return dir.filePath(QString::fromUtf8(name)).toStdString();
}

void writePlain(const std::string &path, const QByteArray &content)
{
    QFile file(QString::fromStdString(path));
    QVERIFY(file.open(QIODevice::WriteOnly));
    QCOMPARE(file.write(content), content.size());
}

QByteArray readPlain(const std::string &path)
{
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly))
        return "<missing>";
    return file.readAll();
}

QStringList entries(const QTemporaryDir &dir)
{
    return QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden);
}

bool contains(const std::string &message, const char *part)
{
    return message.find(part) != std::string::npos;
}

// Lets writes in this process fail with EFBIG past `bytes`, as a full disk would mid-write.
class FileSizeLimit
{
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        std::signal(SIGXFSZ, SIG_IGN);
        getrlimit(RLIMIT_FSIZE, &m_old);
        rlimit limited = m_old;
        limited.rlim_cur = bytes;
        setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &m_old); }
    FileSizeLimit(const FileSizeLimit &) = delete;
    FileSizeLimit &operator=(const FileSizeLimit &) = delete;

private:
    rlimit m_old{};
};

} // namespace

class TestFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsWholeFile();
    void readErrors_data();
    void readErrors();
    void writeCreatesAndReplaces();
    void writeKeepsPermissions();
    void failedWriteKeepsOldContent();
    void writeIntoMissingFolderFails();
    void writeOverFolderFails();
};

void TestFiles::readsWholeFile()
{
    QTemporaryDir dir;
    const std::string path = pathIn(dir, "a.json");
    QByteArray content(200000, 'x'); // more than one read() chunk
    content[0] = '{';
    writePlain(path, content);
    auto text = readTextFile(path);
    QVERIFY(text.ok());
    QCOMPARE(QByteArray::fromStdString(*text), content);

    writePlain(path, QByteArray());
    auto empty = readTextFile(path);
    QVERIFY(empty.ok());
    QVERIFY(empty->empty());
}

void TestFiles::readErrors_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing") << 0 << QStringLiteral("no such file");
    QTest::newRow("folder") << 1 << QStringLiteral("is a folder, not a file");
    QTest::newRow("too large") << 2 << QStringLiteral("is 1001 bytes; HetPlan reads at most 1000");
    QTest::newRow("too large, no size (a pipe)")
        << 3 << QStringLiteral("HetPlan reads at most 1000");
}

void TestFiles::readErrors()
{
    QFETCH(int, which);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    std::string path;
    switch (which) {
    case 0:
        path = pathIn(dir, "missing.json");
        break;
    case 1:
        path = dir.path().toStdString();
        break;
    case 2:
        path = pathIn(dir, "big.json");
        writePlain(path, QByteArray(1001, ' '));
        break;
    default: {
        // A FIFO reports size 0, so only the bounded read can catch it.
        path = pathIn(dir, "fifo");
        QCOMPARE(mkfifo(path.c_str(), 0600), 0);
        const std::string writer = "head -c 5000 /dev/zero > " + path + " &";
        QCOMPARE(std::system(writer.c_str()), 0);
    }
    }
    auto text = readTextFile(path, 1000);
    QVERIFY(!text.ok());
    const QString message = QString::fromStdString(text.error().message);
    QVERIFY2(message.startsWith(QString::fromStdString(path) + QStringLiteral(": ")),
             qPrintable(message));
    QVERIFY2(message.contains(expected), qPrintable(message));
}

void TestFiles::writeCreatesAndReplaces()
{
    QTemporaryDir dir;
    const std::string path = pathIn(dir, "plan.json");
    QVERIFY(writeFileAtomic(path, "first").ok());
    QCOMPARE(readPlain(path), QByteArray("first"));
    QVERIFY(writeFileAtomic(path, "second, longer").ok());
    QCOMPARE(readPlain(path), QByteArray("second, longer"));
    QVERIFY(writeFileAtomic(path, "").ok());
    QCOMPARE(readPlain(path), QByteArray());
    QCOMPARE(entries(dir), QStringList{QStringLiteral("plan.json")}); // no temporaries left
}

void TestFiles::writeKeepsPermissions()
{
    QTemporaryDir dir;
    const std::string path = pathIn(dir, "script.json");
    writePlain(path, "old");
    QCOMPARE(chmod(path.c_str(), 0640), 0);
    QVERIFY(writeFileAtomic(path, "new").ok());
    struct stat info
    {
    };
    QCOMPARE(stat(path.c_str(), &info), 0);
    QCOMPARE(int(info.st_mode & 0777), 0640);
}

void TestFiles::failedWriteKeepsOldContent()
{
    QTemporaryDir dir;
    const std::string path = pathIn(dir, "cluster.json");
    writePlain(path, "old content");
    Status status = okStatus();
    {
        // The write fails part-way, after 16 bytes of the temporary file are on disk.
        FileSizeLimit limit(16);
        status = writeFileAtomic(path, std::string(100000, 'n'));
    }
    QVERIFY(!status.ok());
    QVERIFY2(contains(status.error().message, path.c_str())
                 && contains(status.error().message, "cannot write"),
             status.error().message.c_str());
    QCOMPARE(readPlain(path), QByteArray("old content"));
    QCOMPARE(entries(dir), QStringList{QStringLiteral("cluster.json")});
}

void TestFiles::writeIntoMissingFolderFails()
{
    QTemporaryDir dir;
    const std::string path = pathIn(dir, "no/such/folder/plan.json");
    const Status status = writeFileAtomic(path, "content");
    QVERIFY(!status.ok());
    QVERIFY2(contains(status.error().message, path.c_str())
                 && contains(status.error().message, "no/such/folder"),
             status.error().message.c_str());
    QVERIFY(entries(dir).isEmpty());
}

void TestFiles::writeOverFolderFails()
{
    QTemporaryDir dir;
    const std::string folder = pathIn(dir, "plans");
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("plans")));
    writePlain(folder + "/keep.json", "kept");
    const Status status = writeFileAtomic(folder, "content");
    QVERIFY(!status.ok());
    QVERIFY2(contains(status.error().message, "is a folder"), status.error().message.c_str());
    QCOMPARE(readPlain(folder + "/keep.json"), QByteArray("kept"));
    QCOMPARE(entries(dir), QStringList{QStringLiteral("plans")});
}

HETPLAN_TEST_APPLESS_MAIN(TestFiles)
#include "tst_files.moc"
