#pragma once

// Several "hosts" on one machine for the launcher's tests: network namespaces (`ip netns`),
// each joined by a veth pair to a bridge in the root namespace and given an address the test
// chooses (10.77.K.N/24, K from the test's process id so that parallel runs do not collide),
// loopback up, and its own sshd (sshd_fixture.h). Everything carries the process id in its
// name and is removed by the destructor, also when a test fails half-way. Creating namespaces
// needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN): elsewhere create() says why, for QSKIP.

#include "tests/runtime/sshd_fixture.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

#include <csignal>
#include <memory>
#include <vector>

namespace hetplan::test {

// Runs a command to its end; empty on success, else its output (for messages).
inline QString runTool(const QString &program, const QStringList &args)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(program, args);
    if (!p.waitForFinished(20000))
        return program + QStringLiteral(" did not finish");
    if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        const QString out = QString::fromUtf8(p.readAll()).trimmed();
        return program + QLatin1Char(' ') + args.join(QLatin1Char(' ')) + QStringLiteral(": ")
               + (out.isEmpty() ? QStringLiteral("failed") : out);
    }
    return {};
}

// The command line of process `pid`, its words joined by spaces ("" when it is gone).
inline QString processCommandLine(int pid)
{
    QFile file(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    QByteArray words = file.readAll();
    words.replace('\0', ' ');
    return QString::fromUtf8(words).trimmed();
}

// Writes a hetplan.hosts/1 file of `entries` to `path`; empty when it cannot.
inline QString writeHostsFile(const QString &path, const QJsonArray &entries)
{
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return {};
    file.write(
        QJsonDocument(QJsonObject{{QStringLiteral("format"), QStringLiteral("hetplan.hosts/1")},
                                  {QStringLiteral("hosts"), entries}})
            .toJson());
    return path;
}

class NamespaceHosts
{
public:
    NamespaceHosts()
        : m_id(QString::number(::getpid()))
        , m_subnet(QStringLiteral("10.77.%1.").arg(1 + ::getpid() % 250))
    {}

    ~NamespaceHosts()
    {
        for (std::size_t i = 0; i < m_sshd.size(); ++i) {
            m_sshd[i]->stop();
            for (int pid : pids(int(i)))
                ::kill(pid, SIGKILL);
            runTool(m_ip, {QStringLiteral("netns"), QStringLiteral("del"), name(int(i))});
        }
        if (m_bridgeUp)
            runTool(m_ip, {QStringLiteral("link"), QStringLiteral("del"), bridge()});
    }
    NamespaceHosts(const NamespaceHosts &) = delete;
    NamespaceHosts &operator=(const NamespaceHosts &) = delete;

    // Creates `count` hosts, each with sshd on port 22; empty on success, else why not.
    QString create(int count)
    {
        m_ip = findTool(QStringLiteral("ip"));
        if (m_ip.isEmpty())
            return QStringLiteral("ip is not installed (Debian: iproute2)");
        const QString ip = m_ip;
        if (QString e = runTool(ip, {QStringLiteral("link"), QStringLiteral("add"), bridge(),
                                     QStringLiteral("type"), QStringLiteral("bridge")});
            !e.isEmpty())
            return QStringLiteral("network namespaces are not permitted here (needs root): ") + e;
        m_bridgeUp = true;
        const QStringList setup[]
            = {{QStringLiteral("addr"), QStringLiteral("add"), m_subnet + QStringLiteral("1/24"),
                QStringLiteral("dev"), bridge()},
               {QStringLiteral("link"), QStringLiteral("set"), bridge(), QStringLiteral("up")}};
        for (const QStringList &args : setup)
            if (QString e = runTool(ip, args); !e.isEmpty())
                return e;
        for (int i = 0; i < count; ++i)
            if (QString e = addHost(i); !e.isEmpty())
                return i == 0 ? QStringLiteral("network namespaces are not permitted here: ") + e
                              : e;
        return {};
    }

    int count() const { return int(m_sshd.size()); }
    QString name(int i) const { return QStringLiteral("hetplan-%1-%2").arg(m_id).arg(i); }
    QString address(int i) const { return m_subnet + QString::number(i + 2); }
    // An address on the hosts' network that nobody has.
    QString unusedAddress() const { return m_subnet + QStringLiteral("250"); }
    Sshd &sshd(int i) { return *m_sshd[std::size_t(i)]; }

    // Every process in host i's namespace.
    std::vector<int> pids(int i) const
    {
        QProcess p;
        p.start(m_ip, {QStringLiteral("netns"), QStringLiteral("pids"), name(i)});
        p.waitForFinished(10000);
        std::vector<int> list;
        for (const QByteArray &line : p.readAllStandardOutput().split('\n'))
            if (bool ok = false; line.trimmed().toInt(&ok), ok)
                list.push_back(line.trimmed().toInt());
        return list;
    }

    // Every TCP socket listening on host i ("ss -ltnpH" lines), the host's sshd among them.
    QStringList listeners(int i) const
    {
        QProcess ss;
        ss.start(m_ip, {QStringLiteral("netns"), QStringLiteral("exec"), name(i),
                        findTool(QStringLiteral("ss")), QStringLiteral("-ltnpH")});
        ss.waitForFinished(10000);
        return QString::fromUtf8(ss.readAllStandardOutput())
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    // "pid name" of every process in host i's namespace that a job started (anything but
    // its sshd and the sessions sshd serves).
    QStringList jobProcesses(int i) const
    {
        QStringList found;
        for (int pid : pids(i)) {
            QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
            if (!comm.open(QIODevice::ReadOnly))
                continue; // gone meanwhile
            const QString name = QString::fromUtf8(comm.readAll()).trimmed();
            if (name != QLatin1String("sshd"))
                found << QStringLiteral("%1 %2").arg(pid).arg(name);
        }
        return found;
    }

    // A hetplan.hosts/1 entry mapping `machine` to host i through its sshd and user key.
    QJsonObject hostEntry(int i, const QString &machine, const QString &workdir,
                          const QString &worker)
    {
        return {{QStringLiteral("machine"), machine},
                {QStringLiteral("host"), address(i)},
                {QStringLiteral("port"), 22},
                {QStringLiteral("identity"), sshd(i).path(QStringLiteral("user"))},
                {QStringLiteral("workdir"), workdir},
                {QStringLiteral("worker"), worker}};
    }

    // `dir`/hosts.json mapping machine i of `machines` to host i, with the workdir
    // `dir`/host-i and `worker`; empty when it cannot be written.
    QString writeHosts(const QStringList &machines, const QString &dir, const QString &worker)
    {
        QJsonArray entries;
        for (int i = 0; i < machines.size(); ++i)
            entries.append(
                hostEntry(i, machines[i], dir + QStringLiteral("/host-%1").arg(i), worker));
        return writeHostsFile(dir + QStringLiteral("/hosts.json"), entries);
    }

    // What a job left running on any host once the last sshd sessions had up to 5 s to end
    // after the launcher disconnected (jobProcesses()).
    QStringList jobProcessesLeft() const
    {
        QStringList left;
        for (int i = 0; i < 50; ++i) {
            left = jobProcesses();
            if (left.isEmpty())
                break;
            QThread::msleep(100);
        }
        return left;
    }

    // jobProcesses of every host, each prefixed with the host's name.
    QStringList jobProcesses() const
    {
        QStringList all;
        for (int i = 0; i < count(); ++i)
            for (const QString &p : jobProcesses(i))
                all << name(i) + QLatin1Char(' ') + p;
        return all;
    }

    // Shapes host i's link to `rate` (tc's spelling: "200mbit") in both directions with a
    // tbf of a small bucket, as scripts/emulated-cluster.sh does, over jumbo frames (9000 bytes,
    // as data-centre links carry them: headers then take under 1 % of the rate); empty on
    // success, else why not.
    QString shape(int i, const QString &rate) const
    {
        const QString tc = findTool(QStringLiteral("tc"));
        if (tc.isEmpty())
            return QStringLiteral("tc is not installed (Debian: iproute2)");
        const QStringList mtu{QStringLiteral("mtu"), QStringLiteral("9000")};
        const QStringList set{QStringLiteral("link"), QStringLiteral("set")};
        if (QString e = runTool(m_ip, set + QStringList{veth(i)} + mtu); !e.isEmpty())
            return e;
        if (QString e = runTool(m_ip, QStringList{QStringLiteral("-n"), name(i)} + set
                                          + QStringList{QStringLiteral("eth0")} + mtu);
            !e.isEmpty())
            return e;
        const QStringList tbf{QStringLiteral("root"),    QStringLiteral("tbf"),
                              QStringLiteral("rate"),    rate,
                              QStringLiteral("burst"),   QStringLiteral("16kb"),
                              QStringLiteral("latency"), QStringLiteral("50ms")};
        const QStringList add{QStringLiteral("qdisc"), QStringLiteral("add"),
                              QStringLiteral("dev")};
        if (QString e = runTool(tc, QStringList{QStringLiteral("-n"), name(i)} + add
                                        + QStringList{QStringLiteral("eth0")} + tbf);
            !e.isEmpty())
            return e;
        return runTool(tc, add + QStringList{veth(i)} + tbf);
    }

private:
    QString bridge() const { return QStringLiteral("hpbr") + m_id; }
    QString veth(int i) const { return QStringLiteral("hpv%1x%2").arg(m_id).arg(i); }

    QString addHost(int i)
    {
        const QString ns = name(i);
        if (QString e = runTool(m_ip, {QStringLiteral("netns"), QStringLiteral("add"), ns});
            !e.isEmpty())
            return e;
        m_sshd.push_back(std::make_unique<Sshd>());
        const QStringList setup[]
            = {{QStringLiteral("link"), QStringLiteral("add"), veth(i), QStringLiteral("type"),
                QStringLiteral("veth"), QStringLiteral("peer"), QStringLiteral("name"),
                QStringLiteral("eth0"), QStringLiteral("netns"), ns},
               {QStringLiteral("link"), QStringLiteral("set"), veth(i), QStringLiteral("master"),
                bridge(), QStringLiteral("up")},
               {QStringLiteral("-n"), ns, QStringLiteral("addr"), QStringLiteral("add"),
                address(i) + QStringLiteral("/24"), QStringLiteral("dev"), QStringLiteral("eth0")},
               {QStringLiteral("-n"), ns, QStringLiteral("link"), QStringLiteral("set"),
                QStringLiteral("eth0"), QStringLiteral("up")},
               {QStringLiteral("-n"), ns, QStringLiteral("link"), QStringLiteral("set"),
                QStringLiteral("lo"), QStringLiteral("up")}};
        for (const QStringList &args : setup)
            if (QString e = runTool(m_ip, args); !e.isEmpty())
                return e;
        Sshd &sshd = *m_sshd.back();
        if (QString why = sshd.prepare(); !why.isEmpty())
            return why;
        if (!sshd.startAt(QStringLiteral("host_a"), address(i), 22,
                          {m_ip, QStringLiteral("netns"), QStringLiteral("exec"), ns}))
            return QStringLiteral("sshd in ") + ns + QStringLiteral(": ") + sshd.error();
        return {};
    }

    QString m_id;
    QString m_subnet;
    QString m_ip;
    bool m_bridgeUp = false;
    std::vector<std::unique_ptr<Sshd>> m_sshd;
};

} // namespace hetplan::test
