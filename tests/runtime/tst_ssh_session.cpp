// The SSH launcher's session layer against a real OpenSSH server on loopback (sshd_fixture.h):
// host keys are trusted as OpenSSH does it, authentication failures say what to do, commands
// stream their output and exit status, uploads replace files atomically.
#include "core/io/hosts_json.h"
#include "runtime/launcher/remote_command.h"
#include "runtime/launcher/ssh_session.h"
#include "sshd_fixture.h"
#include "tests/test_registry.h"

#include <QElapsedTimer>
#include <QtTest>

#include <pwd.h>
#include <sys/stat.h>
#include <thread>

using namespace hetplan;

namespace {

std::string localUser()
{
    const passwd *pw = ::getpwuid(::getuid());
    return pw ? pw->pw_name : "";
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestSshSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase() { m_sshd.stop(); }
    void unknownKeyIsAcceptedOnlyWhenConfirmed();
    void changedKeyIsAlwaysRefused();
    void wrongUserKeyFailsClearly();
    void agentAuthenticatesWithoutAnIdentityFile();
    void unreachableHostFailsInBoundedTime();
    void commandOutputStreamsWithExitStatus();
    void uploadReplacesFilesAtomically();
    void sessionsRunInParallelThreads();

private:
    SshTarget target(const QString &identity = QStringLiteral("user")) const
    {
        SshTarget t;
        t.host = "127.0.0.1";
        t.port = m_sshd.port();
        t.user = localUser();
        t.identityFile = identity.isEmpty() ? std::string() : m_sshd.pathStd(identity);
        t.timeoutS = 5;
        return t;
    }
    // A known-hosts file that already trusts the server (host_a).
    HostKeyTrust trusted() const
    {
        HostKeyTrust trust;
        trust.knownHostsFile = m_sshd.pathStd(QStringLiteral("trusted_hosts"));
        trust.acceptAnyNewKey = true;
        return trust;
    }
    // Through a hosts file, as the launcher will connect.
    std::unique_ptr<SshSession> connectTrusted()
    {
        HostsFile written;
        written.hosts.push_back({"A", "127.0.0.1", m_sshd.port(), localUser(),
                                 m_sshd.pathStd(QStringLiteral("user")), "/tmp", "true"});
        auto file = parseHosts(writeHosts(written), "test.hosts.json");
        if (!file.ok()) {
            qWarning("%s", file.error().message.c_str());
            return nullptr;
        }
        auto session = SshSession::connect(sshTarget(file->hosts.at(0)), trusted());
        if (!session.ok())
            qWarning("%s", session.error().message.c_str());
        return session.ok() ? std::move(*session) : nullptr;
    }

    test::Sshd m_sshd;
};

void TestSshSession::initTestCase()
{
    const QString why = m_sshd.prepare();
    if (!why.isEmpty())
        QSKIP(qPrintable(why));
    QVERIFY2(m_sshd.start(QStringLiteral("host_a")), qPrintable(m_sshd.error()));
}

void TestSshSession::unknownKeyIsAcceptedOnlyWhenConfirmed()
{
    HostKeyTrust trust;
    trust.knownHostsFile = m_sshd.pathStd(QStringLiteral("known_hosts"));
    const std::string expected = m_sshd.fingerprint(QStringLiteral("host_a")).toStdString();
    QVERIFY(contains(expected, "SHA256:"));

    HostKeyInfo key;
    auto refused = SshSession::connect(target(), trust, &key);
    QVERIFY(!refused.ok());
    QCOMPARE(int(key.state), int(HostKeyState::Unknown));
    QCOMPARE(key.fingerprint, expected);
    QVERIFY2(contains(refused.error().message, expected), refused.error().message.c_str());
    QVERIFY(readAll(QString::fromStdString(trust.knownHostsFile)).isEmpty());

    // A confirmation of another key (the person saw a different fingerprint) is no consent.
    trust.confirmedFingerprint = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    QVERIFY(!SshSession::connect(target(), trust).ok());
    QVERIFY(readAll(QString::fromStdString(trust.knownHostsFile)).isEmpty());

    trust.confirmedFingerprint = key.fingerprint;
    auto accepted = SshSession::connect(target(), trust, &key);
    QVERIFY2(accepted.ok(), accepted.ok() ? "" : accepted.error().message.c_str());
    QVERIFY(readAll(QString::fromStdString(trust.knownHostsFile)).contains("ssh-ed25519"));

    // From now on the key is known: no confirmation needed.
    trust.confirmedFingerprint.clear();
    auto again = SshSession::connect(target(), trust, &key);
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
    QCOMPARE(int(key.state), int(HostKeyState::Known));
}

void TestSshSession::changedKeyIsAlwaysRefused()
{
    // The file records host_b for this address; the server offers host_a.
    const QString file = m_sshd.path(QStringLiteral("changed_hosts"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("[127.0.0.1]:" + QByteArray::number(m_sshd.port()) + " "
            + readAll(m_sshd.path(QStringLiteral("host_b.pub"))));
    f.close();
    const QByteArray before = readAll(file);

    HostKeyTrust trust;
    trust.knownHostsFile = file.toStdString();
    trust.acceptAnyNewKey = true;
    trust.confirmedFingerprint = m_sshd.fingerprint(QStringLiteral("host_a")).toStdString();
    HostKeyInfo key;
    auto refused = SshSession::connect(target(), trust, &key);
    QVERIFY(!refused.ok());
    QCOMPARE(int(key.state), int(HostKeyState::Changed));
    const std::string &message = refused.error().message;
    QVERIFY2(contains(message, "HOST KEY HAS CHANGED"), message.c_str());
    QVERIFY2(contains(message, trust.confirmedFingerprint), message.c_str());
    QVERIFY2(contains(message, "ssh-keygen -R"), message.c_str());
    QCOMPARE(readAll(file), before);
}

void TestSshSession::wrongUserKeyFailsClearly()
{
    auto refused = SshSession::connect(target(QStringLiteral("stranger")), trusted());
    QVERIFY(!refused.ok());
    const std::string &message = refused.error().message;
    QVERIFY2(contains(message, "refused the key"), message.c_str());
    QVERIFY2(contains(message, m_sshd.pathStd(QStringLiteral("stranger"))), message.c_str());
    QVERIFY2(contains(message, "authorized_keys"), message.c_str());

    auto missing = SshSession::connect(target(QStringLiteral("no_such_key")), trusted());
    QVERIFY(!missing.ok());
    QVERIFY2(contains(missing.error().message, "no_such_key"), missing.error().message.c_str());
}

// With no "identity" the agent's keys are offered; without an agent the message says so.
void TestSshSession::agentAuthenticatesWithoutAnIdentityFile()
{
    const QByteArray saved = qgetenv("SSH_AUTH_SOCK");
    qunsetenv("SSH_AUTH_SOCK");
    auto noAgent = SshSession::connect(target(QString()), trusted());
    QVERIFY(!noAgent.ok());
    QVERIFY2(contains(noAgent.error().message, "SSH_AUTH_SOCK"), noAgent.error().message.c_str());

    const QString socket = m_sshd.startAgent(QStringLiteral("user"));
    QVERIFY2(!socket.isEmpty(), qPrintable(m_sshd.error()));
    qputenv("SSH_AUTH_SOCK", socket.toLocal8Bit());
    auto viaAgent = SshSession::connect(target(QString()), trusted());
    m_sshd.stopAgent();
    if (saved.isNull())
        qunsetenv("SSH_AUTH_SOCK");
    else
        qputenv("SSH_AUTH_SOCK", saved);
    QVERIFY2(viaAgent.ok(), viaAgent.ok() ? "" : viaAgent.error().message.c_str());
}

// A closed port is refused at once; a port where something listens but never speaks SSH (a
// hung host) fails once the target's timeout has passed, instead of waiting forever.
void TestSshSession::unreachableHostFailsInBoundedTime()
{
    SshTarget closed = target();
    closed.port = test::freeLoopbackPort();
    QVERIFY(closed.port > 0);
    auto refused = SshSession::connect(closed, trusted());
    QVERIFY(!refused.ok());
    QVERIFY2(contains(refused.error().message, "connecting failed"),
             refused.error().message.c_str());

    SshTarget silent = target();
    silent.timeoutS = 2;
    const int fd = test::silentListener(&silent.port);
    QVERIFY(fd >= 0);
    QElapsedTimer timer;
    timer.start();
    auto hung = SshSession::connect(silent, trusted());
    const qint64 elapsedMs = timer.elapsed();
    ::close(fd);
    QVERIFY(!hung.ok());
    QVERIFY2(contains(hung.error().message, "127.0.0.1"), hung.error().message.c_str());
    QVERIFY2(elapsedMs < 10000, qPrintable(QString::number(elapsedMs)));
}

void TestSshSession::commandOutputStreamsWithExitStatus()
{
    auto session = connectTrusted();
    QVERIFY(session);
    auto out
        = runCommand(*session, "printf 'out1\\n'; printf 'err1\\n' >&2; echo out2; exit 7", 10);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().message.c_str());
    QCOMPARE(out->exitStatus, 7);
    QCOMPARE(out->stdoutText, std::string("out1\nout2\n"));
    QCOMPARE(out->stderrText, std::string("err1\n"));

    // Killed by a signal, the command leaves no exit status: that is not a success.
    auto killed = runCommand(*session, "kill -KILL $$", 10);
    QVERIFY(!killed.ok());
    QVERIFY2(contains(killed.error().message, "without an exit status"),
             killed.error().message.c_str());

    // The first line arrives while the command still runs: output streams, it is not
    // collected at the end.
    auto started = session->start("echo first; sleep 3; echo second");
    QVERIFY(started.ok());
    RemoteCommand &command = **started;
    std::string seen;
    const auto sink = [&seen](OutputStream, std::string_view text) { seen.append(text); };
    QElapsedTimer timer;
    timer.start();
    bool running = true;
    while (running && !contains(seen, "first") && timer.elapsed() < 10000) {
        auto polled = command.poll(50, sink);
        QVERIFY(polled.ok());
        running = *polled;
    }
    QVERIFY(running);
    QCOMPARE(seen, std::string("first\n"));
    QVERIFY(!command.exitStatus());
    auto status = command.wait(10, sink);
    QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
    QCOMPARE(*status, 0);
    QCOMPARE(seen, std::string("first\nsecond\n"));
}

void TestSshSession::uploadReplacesFilesAtomically()
{
    auto session = connectTrusted();
    QVERIFY(session);
    QVERIFY(QDir().mkpath(m_sshd.path(QStringLiteral("remote"))));
    // A quote and a space in the name: the rename runs through the remote shell.
    const QString target = m_sshd.path(QStringLiteral("remote/it's a plan.json"));
    std::string big(300 * 1024 + 17, 'x'); // several SFTP chunks, not a multiple of one
    for (std::size_t i = 0; i < big.size(); i += 4096)
        big[i] = char('a' + i % 26);
    QVERIFY(session->upload(big, target.toStdString(), 0640).ok());
    QCOMPARE(readAll(target), QByteArray::fromStdString(big));
    struct stat first
    {
    };
    QCOMPARE(::stat(target.toLocal8Bit().constData(), &first), 0);
    QCOMPARE(int(first.st_mode & 0777), 0640);

    // Over an existing file: a new file is renamed over it (another inode), not rewritten in
    // place, so a reader sees the old content or the whole new one.
    auto status = session->upload("second version\n", target.toStdString());
    QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());
    QCOMPARE(readAll(target), QByteArray("second version\n"));
    struct stat second
    {
    };
    QCOMPARE(::stat(target.toLocal8Bit().constData(), &second), 0);
    QVERIFY(second.st_ino != first.st_ino);
    QCOMPARE(QDir(m_sshd.path(QStringLiteral("remote"))).entryList(QDir::Files).size(), 1);

    auto bad = session->upload("x", m_sshd.pathStd(QStringLiteral("no/such/folder/f")));
    QVERIFY(!bad.ok());
    QVERIFY2(contains(bad.error().message, "no/such/folder/f"), bad.error().message.c_str());
}

// The launcher gives every host its own session and thread; several at once must not disturb
// each other (libssh: one session per thread).
void TestSshSession::sessionsRunInParallelThreads()
{
    constexpr int kThreads = 4;
    std::vector<std::string> outputs(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; ++i)
        threads.emplace_back([this, i, &outputs] {
            auto session = SshSession::connect(target(), trusted());
            if (!session.ok()) {
                outputs[std::size_t(i)] = session.error().message;
                return;
            }
            auto out = runCommand(**session, "echo rank " + std::to_string(i), 10);
            outputs[std::size_t(i)] = out.ok() ? out->stdoutText : out.error().message;
        });
    for (std::thread &t : threads)
        t.join();
    for (int i = 0; i < kThreads; ++i)
        QCOMPARE(outputs[std::size_t(i)], "rank " + std::to_string(i) + "\n");
}

HETPLAN_TEST_APPLESS_MAIN(TestSshSession)
#include "tst_ssh_session.moc"
