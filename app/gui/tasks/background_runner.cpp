#include "tasks/background_runner.h"

#include <QCoreApplication>

namespace hetplan::gui {

BackgroundRunner::BackgroundRunner(QObject *parent)
    : QObject(parent)
    , m_watcher(new QFutureWatcher<void>(this))
{
    connect(m_watcher, &QFutureWatcherBase::progressValueChanged, this,
            &BackgroundRunner::progressValueChanged);
    connect(m_watcher, &QFutureWatcherBase::resultReadyAt, this, &BackgroundRunner::resultReadyAt);
    connect(m_watcher, &QFutureWatcherBase::finished, this, &BackgroundRunner::onFinished);
    if (QCoreApplication *app = QCoreApplication::instance())
        connect(app, &QCoreApplication::aboutToQuit, this, &BackgroundRunner::cancelAndWait);
}

BackgroundRunner::~BackgroundRunner()
{
    cancelAndWait();
}

bool BackgroundRunner::isRunning() const
{
    return m_launched && !m_watcher->isFinished();
}

void BackgroundRunner::cancel()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    m_stop.request_stop();
}

void BackgroundRunner::cancelAndWait()
{
    m_stop.request_stop();
    m_watcher->waitForFinished();
}

void BackgroundRunner::onFinished()
{
    Q_EMIT finished(m_cancelled);
}

} // namespace hetplan::gui
