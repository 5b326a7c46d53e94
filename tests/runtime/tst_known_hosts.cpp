// Known-hosts files as OpenSSH reads them (docs/launcher.md#host-keys): first the reader alone
// (which lines name a host, and what is wrong with a line), then a table of files, each given
// both to the launcher and to OpenSSH's own `ssh -o StrictHostKeyChecking=accept-new` against
// one throw-away sshd (sshd_fixture.h): the two must connect or refuse alike and record a key
// alike, except where the launcher is stricter by design (it refuses where ssh connects).
#include "runtime/launcher/known_hosts.h"
#include "runtime/launcher/ssh_session.h"
#include "sshd_fixture.h"
#include "tests/test_registry.h"

#include <QtTest>

#include <pwd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

using namespace hetplan;

namespace {

// host_a's public key (an ed25519 key made for these tests) and its hashed name.
constexpr const char *kKey = "AAAAC3NzaC1lZDI1NTE5AAAAIJ9J0MT7102N3u4xEyeWZbaDTQgKtPRAxZyaD+tNfQt3";
constexpr const char *kHashedName = "|1|5mmBw787cHnlEquptGS9Rvi7cTE=|mbdICQrBlVtQj56y1ih/ODmEKKI=";

std::string localUser()
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw ? pw->pw_name : "";
}

// Only a regular file: opening a FIFO would wait for a writer.
QByteArray readAll(const QString &path)
{
    if (!QFileInfo(path).isFile())
        return {};
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// What came of one connection attempt.
enum Outcome { Refused, Connected, ConnectedAndRecorded, Hung };

const char *outcomeName(int outcome)
{
    switch (outcome) {
    case Refused:
        return "refused";
    case Connected:
        return "connected";
    case ConnectedAndRecorded:
        return "connected and recorded the key";
    default:
        return "hung";
    }
}

// setpriv(1)'s arguments that run `program` (arguments follow) without the capabilities that
// let root read every file.
QStringList withoutRootsReadRight(const QString &program)
{
    return {QStringLiteral("--bounding-set"), QStringLiteral("-dac_override,-dac_read_search"),
            QStringLiteral("--inh-caps"), QStringLiteral("-dac_override,-dac_read_search"),
            program};
}

} // namespace

class TestKnownHosts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void linesForHost_data();
    void linesForHost();
    void initTestCase();
    void cleanupTestCase() { m_sshd.stop(); }
    void decidesAsOpenSsh_data();
    void decidesAsOpenSsh();
    void offersTheRecordedKeyType();

private:
    QString fill(QString text) const;
    Outcome launcherOutcome(int port, const QString &file, bool acceptNew, bool unreadable,
                            std::string *message, HostKeyInfo *key = nullptr);
    Outcome openSshOutcome(int port, const QString &file, bool acceptNew, bool unreadable);

    test::Sshd m_sshd;
    QString m_skip; // why the sshd table cannot run here; empty when it can
    QString m_hashedName;
    QString m_sshOutput; // what the last ssh printed, for failure messages
};

// ---- The reader alone -------------------------------------------------------------------------

void TestKnownHosts::linesForHost_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("lines");       // lines that name the host
    QTest::addColumn<QString>("problem"); // part of the first line's problem; empty: none
    const QString key = QString::fromLatin1(kKey);
    const QString ed = QStringLiteral("ssh-ed25519 ") + key;
    const QString name = QStringLiteral("[127.0.0.1]:42222");

    QTest::newRow("plain") << QStringLiteral("[127.0.0.1]:42222 ") + ed << name << 1 << QString();
    QTest::newRow("crlf, comment")
        << QStringLiteral("# c\r\n[127.0.0.1]:42222 ") + ed + QStringLiteral("\r\n") << name << 1
        << QString();
    QTest::newRow("crlf after a comment text")
        << QStringLiteral("[127.0.0.1]:42222\t") + ed + QStringLiteral(" me@there\r\n") << name << 1
        << QString();
    QTest::newRow("another port") << QStringLiteral("[127.0.0.1]:2222 ") + ed << name << 0
                                  << QString();
    QTest::newRow("port-less name")
        << QStringLiteral("127.0.0.1 ") + ed << QStringLiteral("127.0.0.1") << 1 << QString();
    QTest::newRow("wildcards") << QStringLiteral("other,[127.0.0.?]:4*2 ") + ed << name << 1
                               << QString();
    QTest::newRow("negated") << QStringLiteral("!*:42222,* ") + ed << name << 0 << QString();
    QTest::newRow("case") << QStringLiteral("NODE1 ") + ed << QStringLiteral("node1") << 1
                          << QString();
    QTest::newRow("hashed") << QString::fromLatin1(kHashedName) + QLatin1Char(' ') + ed << name << 1
                            << QString();
    QTest::newRow("hashed, another host")
        << QString::fromLatin1(kHashedName) + QLatin1Char(' ') + ed
        << QStringLiteral("[127.0.0.1]:42223") << 0 << QString();
    // ssh(1) cannot tell which host a damaged hash names: such a line names none.
    QTest::newRow("hashed, damaged salt")
        << QStringLiteral("|1|!!|x ") + ed << name << 0 << QString();
    QTest::newRow("revoked") << QStringLiteral("@revoked * ") + ed << name << 1 << QString();
    QTest::newRow("unknown marker")
        << QStringLiteral("@trusted * ") + ed << name << 1 << QStringLiteral("not a marker");
    QTest::newRow("two markers") << QStringLiteral("@revoked @revoked * ") + ed << name << 1
                                 << QStringLiteral("one marker");
    QTest::newRow("unknown key type")
        << QStringLiteral("* ssh-foo ") + key << name << 1 << QStringLiteral("not a key type");
    QTest::newRow("unknown key type, CRLF, quoted without the CR")
        << QStringLiteral("* ssh-ed25519\r\n") << name << 1
        << QStringLiteral("\"ssh-ed25519?\" is not a key type");
    QTest::newRow("short name is no type")
        << QStringLiteral("* ED25519 ") + key << name << 1 << QStringLiteral("not a key type");
    QTest::newRow("invalid base64")
        << QStringLiteral("* ssh-ed25519 AAAA!!!") << name << 1 << QStringLiteral("base64");
    QTest::newRow("cut last line")
        << QStringLiteral("* ") + ed.left(40) << name << 1 << QStringLiteral("cut short");
    QTest::newRow("no key") << QStringLiteral("* ssh-ed25519\n") << name << 1
                            << QStringLiteral("missing");
    QTest::newRow("host only") << QStringLiteral("*\n") << name << 1
                               << QStringLiteral("no key after");
    QTest::newRow("type differs from the key's")
        << QStringLiteral("* ssh-rsa ") + key << name << 1 << QStringLiteral("not \"ssh-rsa\"");
    QTest::newRow("extra bytes in the key")
        << QStringLiteral("* ssh-ed25519 ") + key + QStringLiteral("AAAA") << name << 1
        << QStringLiteral("extra bytes");
    QTest::newRow("a NUL ends the line")
        << QStringLiteral("* ") + ed + QChar(0) + QStringLiteral("garbage") << name << 1
        << QString();
}

void TestKnownHosts::linesForHost()
{
    QFETCH(QString, text);
    QFETCH(QString, name);
    QFETCH(int, lines);
    QFETCH(QString, problem);
    const std::vector<KnownHostsLine> found
        = knownHostsLinesFor(text.toStdString(), name.toStdString());
    QCOMPARE(int(found.size()), lines);
    if (lines == 0)
        return;
    const KnownHostsLine &line = found.front();
    QVERIFY2(QString::fromStdString(line.problem).contains(problem)
                 && line.problem.empty() == problem.isEmpty(),
             line.problem.c_str());
    if (problem.isEmpty())
        QCOMPARE(line.keyBase64, std::string(kKey));
}

// ---- Against OpenSSH --------------------------------------------------------------------------

void TestKnownHosts::initTestCase()
{
    m_skip = m_sshd.prepare();
    if (m_skip.isEmpty() && test::findTool(QStringLiteral("ssh")).isEmpty())
        m_skip = QStringLiteral("ssh is not installed (Debian: openssh-client)");
    if (!m_skip.isEmpty())
        return;
    // The tests' host key: the one the server offers (host_a), plus an RSA key for "another
    // type is recorded". The hashed name comes from ssh-keygen -H, not from the launcher.
    QProcess keygen;
    keygen.start(m_sshd.keygenPath(),
                 {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("rsa"),
                  QStringLiteral("-b"), QStringLiteral("2048"), QStringLiteral("-N"), QString(),
                  QStringLiteral("-f"), m_sshd.path(QStringLiteral("host_rsa"))});
    QVERIFY(keygen.waitForFinished(30000) && keygen.exitCode() == 0);
    QVERIFY2(m_sshd.start(QStringLiteral("host_a")), qPrintable(m_sshd.error()));
    const QString plain = m_sshd.path(QStringLiteral("hash_me"));
    QFile f(plain);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(fill(QStringLiteral("{H} {A}\n")).toUtf8());
    f.close();
    keygen.start(m_sshd.keygenPath(), {QStringLiteral("-H"), QStringLiteral("-f"), plain});
    QVERIFY(keygen.waitForFinished(10000) && keygen.exitCode() == 0);
    m_hashedName = QString::fromUtf8(readAll(plain)).section(QLatin1Char(' '), 0, 0);
    QVERIFY(m_hashedName.startsWith(QStringLiteral("|1|")));
}

// {H} the host's recorded name "[127.0.0.1]:PORT", {h} it without the port, {#H} it hashed;
// {A} the server's key (type and base64), {B} another ed25519 key, {R} an RSA key.
QString TestKnownHosts::fill(QString text) const
{
    const auto key = [this](const char *name) {
        return QString::fromUtf8(readAll(m_sshd.path(QString::fromLatin1(name))))
            .section(QLatin1Char(' '), 0, 1);
    };
    text.replace(QStringLiteral("{#H}"), m_hashedName);
    text.replace(QStringLiteral("{H}"),
                 QStringLiteral("[127.0.0.1]:") + QString::number(m_sshd.port()));
    text.replace(QStringLiteral("{h}"), QStringLiteral("127.0.0.1"));
    text.replace(QStringLiteral("{A}"), key("host_a.pub"));
    text.replace(QStringLiteral("{cutA}"), key("host_a.pub").left(40));
    text.replace(QStringLiteral("{B}"), key("host_b.pub"));
    text.replace(QStringLiteral("{R}"), key("host_rsa.pub"));
    return text;
}

void TestKnownHosts::decidesAsOpenSsh_data()
{
    QTest::addColumn<QString>("kind"); // "file", "missing", "folder", "fifo", "unreadable"
    QTest::addColumn<QString>("content");
    QTest::addColumn<bool>("acceptNew"); // --accept-new-host-keys; ssh: accept-new, else yes
    QTest::addColumn<int>("launcher");
    QTest::addColumn<int>("openSsh");
    QTest::addColumn<QString>("message"); // part of the launcher's refusal

    const QString file = QStringLiteral("file");
    const auto row = [&](const char *name, const QString &kind, const char *content, bool flag,
                         Outcome launcher, Outcome openSsh, const char *message = "") {
        QTest::newRow(name) << kind << QString::fromLatin1(content) << flag << int(launcher)
                            << int(openSsh) << QString::fromLatin1(message);
    };
    row("recorded", file, "{H} {A}\n", false, Connected, Connected);
    row("recorded, CRLF", file, "# hosts\r\n{H} {A}\r\n", false, Connected, Connected);
    row("recorded, no newline at the end", file, "{H} {A}", false, Connected, Connected);
    row("recorded hashed", file, "{#H} {A}\n", false, Connected, Connected);
    row("recorded by pattern", file, "*.example.org,[127.0.0.?]:* {A}\n", false, Connected,
        Connected);
    row("recorded without the port", file, "{h} {A}\n", false, Connected, Connected);
    row("second line for the host: another type", file, "{H} {R}\n{H} {A}\n", false, Connected,
        Connected);
    row("second line for the host: another key", file, "{H} {B}\n{H} {A}\n", false, Connected,
        Connected);
    row("recorded, second line invalid base64", file, "{H} {A}\n{H} ssh-ed25519 AAAA!!!\n", false,
        Connected, Connected);
    row("changed key", file, "{H} {B}\n", false, Refused, Refused, "HOST KEY HAS CHANGED");
    row("changed key, flag", file, "{H} {B}\n", true, Refused, Refused, "HOST KEY HAS CHANGED");
    row("changed key, CRLF, flag", file, "{H} {B}\r\n", true, Refused, Refused, "line 1");
    row("changed key, cut last line, flag", file, "{H} {B}\n{H} {cutA}", true, Refused, Refused,
        "HOST KEY HAS CHANGED");
    row("changed key hashed, flag", file, "{#H} {B}\n", true, Refused, Refused, "CHANGED");
    row("changed key, second line invalid base64, flag", file, "{H} {B}\n{H} ssh-ed25519 AAAA!!!\n",
        true, Refused, Refused, "CHANGED");
    row("changed key, second line unknown type, flag", file, "{H} {B}\n{H} ssh-foo AAAA\n", true,
        Refused, Refused, "CHANGED");
    row("another type recorded, flag", file, "{H} {R}\n", true, Refused, Refused, "CHANGED");
    row("revoked", file, "@revoked * {A}\n{H} {A}\n", true, Refused, Refused, "REVOKED");
    row("revoked hashed", file, "@revoked {#H} {A}\n", true, Refused, Refused, "line 1");
    row("not recorded", file, "{h}:2 {B}\n", false, Refused, Refused, "not in");
    row("not recorded, flag", file, "# nothing yet", true, ConnectedAndRecorded,
        ConnectedAndRecorded);
    row("not recorded, negated, flag", file, "![127.0.0.1]:*,* {B}\n", true, ConnectedAndRecorded,
        ConnectedAndRecorded);
    row("only another port's key without the port, flag", file, "{h} {B}\n", true,
        ConnectedAndRecorded, ConnectedAndRecorded);
    row("only a certificate authority, flag", file, "@cert-authority {H} {B}\n", true,
        ConnectedAndRecorded, ConnectedAndRecorded);
    row("damaged hash of some host, flag", file, "|1|!!|x {B}\n", true, ConnectedAndRecorded,
        ConnectedAndRecorded);
    row("missing file, flag", QStringLiteral("missing"), "", true, ConnectedAndRecorded,
        ConnectedAndRecorded);
    row("only line unknown type", file, "{H} ssh-foo AAAA\n", false, Refused, Refused,
        "not a key type");
    // Stricter than ssh(1) by design: ssh ignores a line it cannot read and then records the
    // offered key beside it; the launcher records a key only for a host with no line at all.
    row("only line unknown type, flag", file, "{H} ssh-foo AAAA\n", true, Refused,
        ConnectedAndRecorded, "line 1");
    row("only line cut, flag", file, "{H} {cutA}", true, Refused, ConnectedAndRecorded,
        "cut short");
    row("only line unknown marker, flag", file, "@trusted {H} {B}\n", true, Refused,
        ConnectedAndRecorded, "not a marker");
    // ssh(1) only warns about a key revoked for the host without its port, then records it.
    row("revoked without the port, flag", file, "@revoked {h} {A}\n", true, Refused,
        ConnectedAndRecorded, "REVOKED");
    // ssh(1) treats a file it cannot read as empty (connects without checking; a FIFO blocks
    // it forever); the launcher refuses, naming the file.
    row("unreadable, flag", QStringLiteral("unreadable"), "{H} {B}\n", true, Refused, Connected,
        "Permission denied");
    row("folder, flag", QStringLiteral("folder"), "", true, Refused, Connected, "is a folder");
    row("FIFO, flag", QStringLiteral("fifo"), "", true, Refused, Hung, "FIFO");
}

// The launcher's outcome. `unreadable`: run without root's right to read every file (as the
// unprivileged user "nobody" while connecting; the test folder is not searchable for it).
Outcome TestKnownHosts::launcherOutcome(int port, const QString &file, bool acceptNew,
                                        bool unreadable, std::string *message, HostKeyInfo *key)
{
    SshTarget target;
    target.host = "127.0.0.1";
    target.port = port;
    target.user = localUser();
    target.identityFile = m_sshd.pathStd(QStringLiteral("user"));
    target.timeoutS = 5;
    HostKeyTrust trust;
    trust.knownHostsFile = file.toStdString();
    trust.acceptAnyNewKey = acceptNew;
    trust.globalKnownHostsFile.clear(); // as ssh's GlobalKnownHostsFile=/dev/null below
    const QByteArray before = readAll(file);
    const bool dropRoot = unreadable && ::geteuid() == 0;
    if (dropRoot && ::seteuid(65534) != 0)
        qFatal("seteuid(nobody) failed");
    auto session = SshSession::connect(target, trust, key);
    if (dropRoot && ::seteuid(0) != 0)
        qFatal("seteuid(root) failed");
    if (!session.ok()) {
        *message = session.error().message;
        return Refused;
    }
    return readAll(file) == before ? Connected : ConnectedAndRecorded;
}

// OpenSSH's outcome for the same file. `unreadable`: ssh runs without the capabilities that
// let root read every file (setpriv), so that mode 000 keeps it out.
Outcome TestKnownHosts::openSshOutcome(int port, const QString &file, bool acceptNew,
                                       bool unreadable)
{
    QStringList argv{QStringLiteral("-F"),
                     QStringLiteral("/dev/null"),
                     QStringLiteral("-o"),
                     QStringLiteral("StrictHostKeyChecking=")
                         + (acceptNew ? QStringLiteral("accept-new") : QStringLiteral("yes")),
                     QStringLiteral("-o"),
                     QStringLiteral("UserKnownHostsFile=") + file,
                     QStringLiteral("-o"),
                     QStringLiteral("GlobalKnownHostsFile=/dev/null"),
                     QStringLiteral("-o"),
                     QStringLiteral("BatchMode=yes"),
                     QStringLiteral("-i"),
                     m_sshd.path(QStringLiteral("user")),
                     QStringLiteral("-p"),
                     QString::number(port),
                     QString::fromStdString(localUser()) + QStringLiteral("@127.0.0.1"),
                     QStringLiteral("true")};
    QString program = test::findTool(QStringLiteral("ssh"));
    if (unreadable && ::geteuid() == 0) {
        argv = withoutRootsReadRight(program) + argv;
        program = test::findTool(QStringLiteral("setpriv"));
    }
    const QByteArray before = readAll(file);
    m_sshOutput.clear();
    QProcess ssh;
    ssh.setProcessChannelMode(QProcess::MergedChannels);
    ssh.start(program, argv);
    if (!ssh.waitForFinished(6000)) {
        ssh.kill();
        ssh.waitForFinished(5000);
        return Hung;
    }
    m_sshOutput = QString::fromUtf8(ssh.readAll());
    if (ssh.exitStatus() != QProcess::NormalExit || ssh.exitCode() != 0)
        return Refused;
    return readAll(file) == before ? Connected : ConnectedAndRecorded;
}

void TestKnownHosts::decidesAsOpenSsh()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    QFETCH(QString, kind);
    QFETCH(QString, content);
    QFETCH(bool, acceptNew);
    QFETCH(int, launcher);
    QFETCH(int, openSsh);
    QFETCH(QString, message);
    if (kind == QStringLiteral("unreadable") && ::geteuid() == 0) {
        QProcess setpriv;
        setpriv.start(test::findTool(QStringLiteral("setpriv")),
                      withoutRootsReadRight(test::findTool(QStringLiteral("true"))));
        if (!setpriv.waitForFinished(10000) || setpriv.exitCode() != 0)
            QSKIP("running as root, and setpriv (util-linux) cannot drop root's right to read "
                  "every file here");
    }
    // Never laxer than ssh: where the two differ, the launcher refuses.
    QVERIFY(launcher == openSsh || launcher == Refused);

    // One file for each, made alike.
    // A file name ssh takes as it is (no quotes or commas).
    QString tag = QString::fromLatin1(QTest::currentDataTag());
    tag.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]")), QStringLiteral("_"));
    QString files[2];
    for (int i = 0; i < 2; ++i) {
        files[i] = m_sshd.path(QStringLiteral("kh_%1_%2").arg(i).arg(tag));
        if (kind == QStringLiteral("folder")) {
            QVERIFY(QDir().mkpath(files[i]));
        } else if (kind == QStringLiteral("fifo")) {
            QCOMPARE(::mkfifo(files[i].toLocal8Bit().constData(), 0600), 0);
        } else if (kind != QStringLiteral("missing")) {
            QFile f(files[i]);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(fill(content).toUtf8());
            f.close();
            if (kind == QStringLiteral("unreadable"))
                QVERIFY(f.setPermissions(QFileDevice::Permissions()));
        }
    }
    const bool unreadable = kind == QStringLiteral("unreadable");
    std::string why;
    HostKeyInfo key;
    const Outcome ours
        = launcherOutcome(m_sshd.port(), files[0], acceptNew, unreadable, &why, &key);
    const Outcome theirs = openSshOutcome(m_sshd.port(), files[1], acceptNew, unreadable);
    QVERIFY2(int(theirs) == openSsh,
             qPrintable(QStringLiteral("ssh ") + QString::fromLatin1(outcomeName(theirs))
                        + QStringLiteral(": ") + m_sshOutput));
    QVERIFY2(int(ours) == launcher,
             qPrintable(QStringLiteral("the launcher ") + QString::fromLatin1(outcomeName(ours))
                        + QStringLiteral(": ") + QString::fromStdString(why)));
    if (ours == Refused) {
        QVERIFY2(QString::fromStdString(why).contains(message), why.c_str());
        // Only a host with nothing recorded is "unknown" (the launcher then offers to trust
        // it); a damaged or unreadable file is never.
        if (message != QStringLiteral("not in"))
            QVERIFY(key.state != HostKeyState::Unknown || key.fingerprint.empty());
    }
    if (ours == ConnectedAndRecorded) {
        // A line ssh reads back as this host's key, on a line of its own.
        const QByteArray after = readAll(files[0]);
        QVERIFY2(after.endsWith(fill(QStringLiteral("{H} {A}\n")).toUtf8()), after.constData());
        QCOMPARE(knownHostsLinesFor(after.toStdString(), fill(QStringLiteral("{H}")).toStdString())
                     .back()
                     .problem,
                 std::string());
    }
}

// A stock sshd has several host keys. With only one of them recorded, the host must be asked
// for that one first (as ssh(1) asks), or a recorded host would read as changed.
void TestKnownHosts::offersTheRecordedKeyType()
{
    if (!m_skip.isEmpty())
        QSKIP(qPrintable(m_skip));
    // The fixture's stock server, restarted with both keys, and as before afterwards.
    m_sshd.stop();
    const auto restore = qScopeGuard([this] {
        m_sshd.stop();
        m_sshd.start(QStringLiteral("host_a"));
    });
    QVERIFY2(m_sshd.start({QStringLiteral("host_a"), QStringLiteral("host_rsa")}),
             qPrintable(m_sshd.error()));
    const int port = m_sshd.port();
    for (const char *recorded : {"host_rsa.pub", "host_a.pub"}) {
        const QByteArray line
            = "[127.0.0.1]:" + QByteArray::number(port) + " "
              + readAll(m_sshd.path(QString::fromLatin1(recorded))).split(' ').mid(0, 2).join(' ')
              + "\n";
        QString files[2];
        for (int i = 0; i < 2; ++i) {
            files[i] = m_sshd.path(
                QStringLiteral("two_keys_%1_%2").arg(i).arg(QString::fromLatin1(recorded)));
            QFile f(files[i]);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(line);
        }
        std::string why;
        QCOMPARE(openSshOutcome(port, files[1], true, false), Connected);
        QVERIFY2(launcherOutcome(port, files[0], true, false, &why) == Connected, why.c_str());
    }
}

HETPLAN_TEST_APPLESS_MAIN(TestKnownHosts)
#include "tst_known_hosts.moc"
