#pragma once

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <any>
#include <stop_token>
#include <utility>

namespace hetplan::gui {

// The app's one way to run work in the background (docs/architecture.md, "Conventions": background
// work): planning, the what-if re-plan, the bandwidth sweep, calibration, launching and importing
// all go through it. The work is a plain function of a QPromise and a stop token, run by
// QtConcurrent::run; a QFutureWatcher owned here brings its progress and results back to the GUI
// thread; Cancel is request_stop(); starting while something runs cancels it and starts the new
// work when the old has returned; quitting and destruction cancel and wait. The GUI thread never
// waits on the work otherwise. One piece of work at a time: a caller that wants to replace running
// work cancels it and starts the new one on finished() (PlanningController does).
class BackgroundRunner : public QObject
{
    Q_OBJECT

public:
    explicit BackgroundRunner(QObject *parent = nullptr);
    ~BackgroundRunner() override;

    // `work(promise, stop)` runs on a pool thread; it reports with promise.setProgressValue()
    // and promise.addResult(). Results are read with future<T>() once finished() or
    // resultReadyAt() says they are there. Nothing may be running (isRunning() is false).
    template<typename T, typename Work>
    void start(Work work)
    {
        Q_ASSERT(!isRunning());
        m_stop = std::stop_source();
        m_cancelled = false;
        m_launched = true;
        QFuture<T> future = QtConcurrent::run([work = std::move(work), stop = m_stop.get_token()](
                                                  QPromise<T> &promise) { work(promise, stop); });
        m_future = future;
        m_watcher->setFuture(QFuture<void>(future));
        Q_EMIT started();
    }

    bool isRunning() const;
    // Asks the work to stop; finished(true) follows as soon as it notices.
    void cancel();
    // Shutdown: stop the running work and block until it has returned.
    void cancelAndWait();
    bool wasCancelled() const { return m_cancelled; }

    // The running or last work's future; T must be the type it was started with.
    template<typename T>
    QFuture<T> future() const
    {
        return m_future.has_value() ? std::any_cast<QFuture<T>>(m_future) : QFuture<T>();
    }

Q_SIGNALS:
    void started();
    void progressValueChanged(int value);
    void resultReadyAt(int index);
    // The work returned; `cancelled` when it was asked to stop (it may still have results).
    void finished(bool cancelled);

private:
    void onFinished();

    QFutureWatcher<void> *m_watcher = nullptr;
    std::stop_source m_stop;
    std::any m_future; // QFuture<T> of the running or last work
    bool m_cancelled = false;
    bool m_launched = false; // something was started at least once
};

} // namespace hetplan::gui
