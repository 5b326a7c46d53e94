#pragma once

// A test in the launcher's place: `hetplan-worker agent` as a child process in a job folder,
// frames both ways, and the rendezvous store's keys held here (runtime/agent/store_keys.h) so
// the agent's ranks can meet through it. Store requests are answered as they arrive.

#include "runtime/agent/agent_protocol.h"
#include "runtime/agent/store_keys.h"
#include "tests/test_programs.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QString>

#include <optional>
#include <vector>

namespace hetplan::agent::test {

class AgentFixture
{
public:
    explicit AgentFixture(const QString &jobDir)
    {
        m_process.setWorkingDirectory(jobDir);
        m_process.start(hetplan::test::projectProgram("hetplan-worker"), {QStringLiteral("agent")});
        m_process.waitForStarted();
    }
    // Stops the agent if a failed check left it running; its ranks die with it (PDEATHSIG).
    ~AgentFixture()
    {
        if (m_process.state() != QProcess::NotRunning) {
            m_process.kill();
            m_process.waitForFinished(10000);
        }
    }
    AgentFixture(const AgentFixture &) = delete;
    AgentFixture &operator=(const AgentFixture &) = delete;

    QProcess &process() { return m_process; }
    qint64 pid() const { return m_process.processId(); }

    void send(const Frame &frame)
    {
        const std::string bytes = encodeFrame(frame);
        m_process.write(bytes.data(), qint64(bytes.size()));
        m_process.waitForBytesWritten(10000);
    }
    void sendSpec(const AgentSpec &spec) { send({FrameKind::Spec, -1, encodeSpec(spec)}); }

    // The next frame within `timeoutMs`, store requests answered and skipped on the way; empty
    // when the agent's stdout ended or broke the format, or on the timeout.
    std::optional<Frame> next(int timeoutMs = 30000)
    {
        QElapsedTimer clock;
        clock.start();
        for (;;) {
            auto frame = m_reader.next();
            if (!frame)
                return std::nullopt;
            if (*frame) {
                if ((*frame)->kind == FrameKind::StoreRequest) {
                    answer((*frame)->payload);
                    continue;
                }
                return std::move(*frame);
            }
            const qint64 left = timeoutMs - clock.elapsed();
            if (left <= 0)
                return std::nullopt;
            if (m_process.bytesAvailable() == 0 && !m_process.waitForReadyRead(int(left))
                && m_process.bytesAvailable() == 0)
                return std::nullopt;
            const QByteArray bytes = m_process.readAllStandardOutput();
            m_reader.feed(std::string_view(bytes.constData(), std::size_t(bytes.size())));
        }
    }

    // Every frame up to and with Finished (or the end of the agent's stdout), heartbeats left
    // out.
    std::vector<Frame> untilFinished(int timeoutMs = 60000)
    {
        std::vector<Frame> frames;
        QElapsedTimer clock;
        clock.start();
        while (clock.elapsed() < timeoutMs) {
            auto frame = next(int(timeoutMs - clock.elapsed()));
            if (!frame)
                break;
            if (frame->kind == FrameKind::Heartbeat)
                continue;
            frames.push_back(std::move(*frame));
            if (frames.back().kind == FrameKind::Finished)
                break;
        }
        return frames;
    }

    // The agent's exit code once it ended, -1 when it did not within `timeoutMs` or crashed.
    int exitCode(int timeoutMs = 30000)
    {
        if (!m_process.waitForFinished(timeoutMs) && m_process.state() != QProcess::NotRunning)
            return -1;
        return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
    }

private:
    void answer(const std::string &payload)
    {
        auto request = decodeStoreRequest(payload);
        if (!request)
            return;
        for (const StoreKeys::Due &due : m_keys.handle(0, *request))
            send({FrameKind::StoreReply, -1, encodeStoreReply(due.reply)});
    }

    QProcess m_process;
    FrameReader m_reader;
    StoreKeys m_keys;
};

} // namespace hetplan::agent::test
