#pragma once

// A throw-away OpenSSH server on loopback for the launcher's tests: generated host and user
// keys in a temporary folder, a free port, started and stopped by the test. Its configuration
// is Debian's stock sshd_config, the one the package ships (UsePAM yes, the sftp-server
// subsystem, at most 10 sessions per connection ...), with only the settings a throw-away server
// must change (stockSshdConfig below). sshd wants an absolute path (it re-executes itself) and
// /run/sshd when run by root (its privilege-separation folder); `-D` keeps it in the
// foreground so the test can stop it; `-E` sends its log to a file in the folder.

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace hetplan::test {

inline QString findTool(const QString &name)
{
    return QStandardPaths::findExecutable(
        name,
        {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin"), QStringLiteral("/usr/local/sbin"),
         QStringLiteral("/usr/local/bin"), QStringLiteral("/sbin"), QStringLiteral("/bin")});
}

// A port on 127.0.0.1 that was free a moment ago (the kernel's choice); 0 on failure.
// Nothing answers on it until someone listens there.
inline int freeLoopbackPort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    const bool ok = fd >= 0
                    && ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0
                    && ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0;
    if (fd >= 0)
        ::close(fd);
    return ok ? ntohs(address.sin_port) : 0;
}

// A socket listening on 127.0.0.1 that never accepts: the kernel completes connections, but no
// SSH greeting ever comes, as from a hung host. Returns the descriptor (-1 on failure).
inline int silentListener(int *port)
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) != 0
        || ::getsockname(fd, reinterpret_cast<sockaddr *>(&address), &length) != 0
        || ::listen(fd, 4) != 0) {
        if (fd >= 0)
            ::close(fd);
        return -1;
    }
    *port = ntohs(address.sin_port);
    return fd;
}

inline bool acceptsConnections(int port, const char *ipv4 = "127.0.0.1")
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(std::uint16_t(port));
    ::inet_pton(AF_INET, ipv4, &address.sin_addr);
    const bool ok
        = fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
    if (fd >= 0)
        ::close(fd);
    return ok;
}

// The package's pristine sshd_config (openssh-server ships it here; /etc/ssh/sshd_config may
// have been edited on this machine).
inline const QString kStockSshdConfig = QStringLiteral("/usr/share/openssh/sshd_config");

// Debian's stock sshd_config with only these settings changed: where it listens, its host key,
// where the authorized keys are and no pid file. And `StrictModes no`: the throw-away keys live
// under /tmp, which is world-writable, and with StrictModes sshd refuses any authorized_keys
// whose path passes through such a folder ("bad ownership or modes for directory /tmp").
// Each setting replaces the stock file's commented default in place (sshd takes the first value
// it reads, so one placed before the file's Include and settings also wins where no such line
// exists). Empty when the stock file cannot be read.
// Several host keys take the stock file's commented HostKey lines in turn.
inline QByteArray stockSshdConfig(int port, const QString &address, const QStringList &hostKeys,
                                  const QString &authorizedKeys)
{
    QFile stock(kStockSshdConfig);
    if (!stock.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = stock.readAll().split('\n');
    std::vector<std::pair<QByteArray, QByteArray>> changes
        = {{"Port", QByteArray::number(port)}, {"ListenAddress", address.toUtf8()}};
    for (const QString &hostKey : hostKeys)
        changes.emplace_back("HostKey", hostKey.toUtf8());
    changes.insert(changes.end(), {{"AuthorizedKeysFile", authorizedKeys.toUtf8()},
                                   {"PidFile", "none"},
                                   {"StrictModes", "no"}});
    for (const auto &[keyword, value] : changes) {
        const QByteArray setting = keyword + ' ' + value;
        auto commented = std::find_if(lines.begin(), lines.end(), [&](const QByteArray &line) {
            return line.startsWith('#' + keyword + ' ') || line.startsWith('#' + keyword + '\t');
        });
        if (commented != lines.end())
            *commented = setting;
        else
            lines.prepend(setting);
    }
    return lines.join('\n');
}

class Sshd
{
public:
    // Empty when the server can run here; otherwise why not (for QSKIP).
    QString prepare()
    {
        m_sshd = findTool(QStringLiteral("sshd"));
        m_keygen = findTool(QStringLiteral("ssh-keygen"));
        if (m_sshd.isEmpty() || m_keygen.isEmpty() || !QFile::exists(kStockSshdConfig))
            return QStringLiteral("sshd, its stock sshd_config or ssh-keygen is not installed "
                                  "(Debian: openssh-server, openssh-client; "
                                  "scripts/install-deps.sh)");
        // Only sshd run by root separates privileges and needs the folder.
        if (::geteuid() == 0 && !QDir(QStringLiteral("/run/sshd")).exists()
            && !QDir().mkpath(QStringLiteral("/run/sshd")))
            return QStringLiteral("sshd needs the folder /run/sshd, which cannot be created");
        for (const char *key : {"host_a", "host_b", "user", "stranger"})
            if (!keygen(QString::fromLatin1(key)))
                return QStringLiteral("ssh-keygen failed: ") + m_lastError;
        QFile::copy(path(QStringLiteral("user.pub")), path(QStringLiteral("authorized_keys")));
        return {};
    }

    // Starts sshd with the host keys `hostKeys` ("host_a", or several, as a stock server has);
    // false with `error()` set on failure.
    bool start(const QStringList &hostKeys)
    {
        return startAt(hostKeys, QStringLiteral("127.0.0.1"), freeLoopbackPort());
    }
    bool start(const QString &hostKey) { return start(QStringList{hostKey}); }

    // The same on `address`:`port`, sshd run through `wrapper` (e.g. `ip netns exec NAME`, so
    // that it serves a network namespace).
    bool startAt(const QString &hostKey, const QString &address, int port,
                 const QStringList &wrapper = {})
    {
        return startAt(QStringList{hostKey}, address, port, wrapper);
    }
    bool startAt(const QStringList &hostKeys, const QString &address, int port,
                 const QStringList &wrapper = {})
    {
        m_port = port;
        if (m_port == 0)
            return fail(QStringLiteral("no free port"));
        QStringList keyPaths;
        for (const QString &key : hostKeys)
            keyPaths << path(key);
        const QByteArray text
            = stockSshdConfig(m_port, address, keyPaths, path(QStringLiteral("authorized_keys")));
        QFile config(path(QStringLiteral("sshd_config")));
        if (text.isEmpty() || !config.open(QIODevice::WriteOnly) || config.write(text) < 0)
            return fail(QStringLiteral("cannot write sshd_config from ") + kStockSshdConfig);
        config.close();
        m_process.setProcessChannelMode(QProcess::MergedChannels);
        QStringList argv = wrapper;
        argv << m_sshd << QStringLiteral("-D") << QStringLiteral("-E") << log()
             << QStringLiteral("-f") << config.fileName();
        m_process.start(argv.takeFirst(), argv);
        const QByteArray ipv4 = address.toLatin1();
        for (int i = 0; i < 200; ++i) {
            if (m_process.state() == QProcess::NotRunning)
                return fail(QStringLiteral("sshd exited: ") + QString::fromUtf8(m_process.readAll())
                            + logText());
            if (acceptsConnections(m_port, ipv4.constData()))
                return true;
            QThread::msleep(50);
        }
        return fail(QStringLiteral("sshd did not listen within 10 s: ") + logText());
    }

    // sshd's log (`-E`): connections, authentications, refusals.
    QString log() const { return path(QStringLiteral("sshd.log")); }
    QString logText() const
    {
        QFile file(log());
        return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
    }

    void stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return;
        m_process.terminate();
        if (!m_process.waitForFinished(5000))
            m_process.kill();
        m_process.waitForFinished(5000);
    }

    ~Sshd()
    {
        stop();
        stopAgent();
    }

    // Starts an ssh-agent holding `key` and returns its socket (empty on failure).
    QString startAgent(const QString &key)
    {
        const QString socket = path(QStringLiteral("agent.sock"));
        m_agent.start(findTool(QStringLiteral("ssh-agent")),
                      {QStringLiteral("-D"), QStringLiteral("-a"), socket});
        for (int i = 0; i < 100 && !QFile::exists(socket); ++i)
            QThread::msleep(50);
        QProcess add;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("SSH_AUTH_SOCK"), socket);
        add.setProcessEnvironment(env);
        add.start(findTool(QStringLiteral("ssh-add")), {QStringLiteral("-q"), path(key)});
        if (!add.waitForFinished(10000) || add.exitCode() != 0) {
            fail(QStringLiteral("ssh-add failed: ") + QString::fromUtf8(add.readAll()));
            return {};
        }
        return socket;
    }

    void stopAgent()
    {
        if (m_agent.state() == QProcess::NotRunning)
            return;
        m_agent.terminate();
        m_agent.waitForFinished(5000);
    }

    QString path(const QString &name) const { return m_dir.filePath(name); }
    std::string pathStd(const QString &name) const { return path(name).toStdString(); }
    int port() const { return m_port; }
    qint64 processId() const { return m_process.processId(); }
    const QString &error() const { return m_lastError; }
    const QString &keygenPath() const { return m_keygen; }

    // `ssh-keygen -lf KEY.pub`'s fingerprint ("SHA256:…"), the one a person would compare.
    QString fingerprint(const QString &key) const
    {
        QProcess p;
        p.start(m_keygen, {QStringLiteral("-lf"), path(key + QStringLiteral(".pub"))});
        p.waitForFinished(10000);
        return QString::fromUtf8(p.readAllStandardOutput()).section(QLatin1Char(' '), 1, 1);
    }

private:
    bool keygen(const QString &name)
    {
        QProcess p;
        p.start(m_keygen, {QStringLiteral("-q"), QStringLiteral("-t"), QStringLiteral("ed25519"),
                           QStringLiteral("-N"), QString(), QStringLiteral("-C"), name,
                           QStringLiteral("-f"), path(name)});
        if (!p.waitForFinished(10000) || p.exitCode() != 0)
            return fail(QString::fromUtf8(p.readAllStandardError()));
        return true;
    }

    bool fail(const QString &why)
    {
        m_lastError = why;
        return false;
    }

    QTemporaryDir m_dir;
    QProcess m_process;
    QProcess m_agent;
    QString m_sshd;
    QString m_keygen;
    QString m_lastError;
    int m_port = 0;
};

} // namespace hetplan::test
