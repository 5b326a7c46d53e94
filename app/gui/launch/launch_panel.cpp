#include "launch/launch_panel.h"

#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace hetplan::gui {

namespace {

constexpr int kClockIntervalMs = 500;
constexpr int kDefaultScale = 64; // a CPU-sized model, as the runtime's tests run it
constexpr int kDefaultIterations = 3;

QString elapsedText(qint64 ms)
{
    const qint64 s = ms / 1000;
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

LaunchPanel::LaunchPanel(QWidget *parent)
    : QWidget(parent)
    , m_status(new QLabel(tr("No job yet: Tools › Launch runs the shown plan on its hosts."), this))
    , m_error(new QLabel(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
    , m_byHost(new QCheckBox(tr("By host"), this))
    , m_filter(new QLineEdit(this))
    , m_scale(new QSpinBox(this))
    , m_iterations(new QSpinBox(this))
    , m_tabs(new QTabWidget(this))
    , m_clock(new QTimer(this))
{
    m_status->setObjectName(QStringLiteral("launchStatus"));
    m_error->setObjectName(QStringLiteral("launchError"));
    m_cancel->setObjectName(QStringLiteral("launchCancel"));
    m_byHost->setObjectName(QStringLiteral("launchByHost"));
    m_filter->setObjectName(QStringLiteral("launchFilter"));
    m_scale->setObjectName(QStringLiteral("launchScale"));
    m_iterations->setObjectName(QStringLiteral("launchIterations"));
    m_tabs->setObjectName(QStringLiteral("launchPanes"));

    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b3261e"));
    m_error->hide();
    m_cancel->setEnabled(false);
    m_filter->setPlaceholderText(tr("Filter lines"));
    m_filter->setClearButtonEnabled(true);
    m_byHost->setToolTip(tr("One pane per host instead of one per rank"));
    m_scale->setRange(1, 4096);
    m_scale->setValue(kDefaultScale);
    m_scale->setToolTip(
        tr("Divides the model's head dimension, FFN width, vocabulary and sequence length"));
    m_iterations->setRange(1, 100000);
    m_iterations->setValue(kDefaultIterations);

    auto *top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(new QLabel(tr("Scale"), this));
    top->addWidget(m_scale);
    top->addWidget(new QLabel(tr("Iterations"), this));
    top->addWidget(m_iterations);
    top->addWidget(m_cancel);
    auto *view = new QHBoxLayout;
    view->addWidget(m_filter, 1);
    view->addWidget(m_byHost);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_error);
    layout->addLayout(view);
    layout->addWidget(m_tabs, 1);

    m_clock->setInterval(kClockIntervalMs);
    connect(m_clock, &QTimer::timeout, this, &LaunchPanel::updateStatus);
    connect(m_cancel, &QPushButton::clicked, this, &LaunchPanel::cancelRequested);
    connect(m_byHost, &QCheckBox::toggled, this, &LaunchPanel::rebuild);
    connect(m_filter, &QLineEdit::textChanged, this, &LaunchPanel::rebuild);
    rebuild();
}

int LaunchPanel::scale() const
{
    return m_scale->value();
}

int LaunchPanel::iterations() const
{
    return m_iterations->value();
}

QString LaunchPanel::phaseName(JobPhase phase)
{
    switch (phase) {
    case JobPhase::Connecting:
        return tr("connecting");
    case JobPhase::Uploading:
        return tr("uploading");
    case JobPhase::Running:
        return tr("running");
    case JobPhase::Done:
        return tr("done");
    case JobPhase::Failed:
        return tr("failed");
    case JobPhase::Cancelled:
        return tr("cancelled");
    }
    return {};
}

void LaunchPanel::startJob(const QString &description)
{
    m_log.clear();
    clearPanes();
    m_description = description;
    m_error->hide();
    m_running = true;
    m_endedMs = -1;
    m_phase = JobPhase::Connecting;
    m_elapsed.start();
    m_clock->start();
    m_cancel->setEnabled(true);
    rebuild();
    updateStatus();
}

void LaunchPanel::setPhase(JobPhase phase)
{
    m_phase = phase;
    updateStatus();
}

void LaunchPanel::endJob(JobPhase phase, const QString &error)
{
    m_phase = phase;
    m_running = false;
    m_endedMs = m_elapsed.isValid() ? m_elapsed.elapsed() : 0;
    m_clock->stop();
    m_cancel->setEnabled(false);
    m_error->setText(error);
    m_error->setVisible(!error.isEmpty());
    if (!error.isEmpty()) {
        // Kept in the job's pane too, beside what the ranks printed before it.
        LaunchEvent note;
        note.text = error.toStdString();
        addEvents({note});
    }
    updateStatus();
}

void LaunchPanel::updateStatus()
{
    if (!m_elapsed.isValid())
        return;
    const qint64 ms = m_running ? m_elapsed.elapsed() : m_endedMs;
    m_status->setText(tr("%1 · %2 · %3").arg(m_description, phaseName(m_phase), elapsedText(ms)));
}

LaunchLog::Grouping LaunchPanel::grouping() const
{
    return m_byHost->isChecked() ? LaunchLog::Grouping::Host : LaunchLog::Grouping::Rank;
}

bool LaunchPanel::matches(const QString &line) const
{
    const QString filter = m_filter->text();
    return filter.isEmpty() || line.contains(filter, Qt::CaseInsensitive);
}

QPlainTextEdit *LaunchPanel::pane(const QString &name) const
{
    const auto it = m_panes.find(name);
    return it == m_panes.end() ? nullptr : it->second;
}

QPlainTextEdit *LaunchPanel::paneFor(const QString &name)
{
    if (QPlainTextEdit *existing = pane(name))
        return existing;
    auto *edit = new QPlainTextEdit(m_tabs);
    edit->setObjectName(QStringLiteral("launchPane:") + name);
    edit->setReadOnly(true);
    edit->setMaximumBlockCount(LaunchLog::kMaxLinesPerPane);
    edit->setLineWrapMode(QPlainTextEdit::NoWrap);
    edit->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_tabs->addTab(edit, name == LaunchLog::jobPane() ? tr("Job") : name);
    m_panes[name] = edit;
    return edit;
}

void LaunchPanel::addEvents(const std::vector<LaunchEvent> &events)
{
    // One append per pane per batch: appending line by line re-lays out the pane each time.
    std::map<QString, QStringList> added;
    const bool byHost = grouping() == LaunchLog::Grouping::Host;
    for (const LaunchEvent &event : events)
        for (const LaunchLog::Line &line : m_log.add(event)) {
            const QString &text = byHost ? line.hostText : line.rankText;
            QStringList &lines = added[byHost ? line.hostPane : line.rankPane];
            if (matches(text))
                lines.push_back(text);
        }
    for (const auto &[name, lines] : added) {
        QPlainTextEdit *edit = paneFor(name);
        if (!lines.isEmpty())
            edit->appendPlainText(lines.join(QLatin1Char('\n')));
    }
    showOutputPane();
}

void LaunchPanel::showOutputPane()
{
    // The job's own pane is first and often empty: show the first pane with output instead.
    auto *current = qobject_cast<QPlainTextEdit *>(m_tabs->currentWidget());
    if (current && current != pane(LaunchLog::jobPane()))
        return;
    if (current && !current->document()->isEmpty())
        return;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (auto *edit = qobject_cast<QPlainTextEdit *>(m_tabs->widget(i));
            edit && !edit->document()->isEmpty()) {
            m_tabs->setCurrentIndex(i);
            return;
        }
}

void LaunchPanel::clearPanes()
{
    m_tabs->clear();
    for (auto &[name, edit] : m_panes)
        edit->deleteLater();
    m_panes.clear();
}

void LaunchPanel::rebuild()
{
    // A new grouping needs new panes; a new filter only refills them, so the tab shown stays.
    if (grouping() != m_paneGrouping) {
        clearPanes();
        m_paneGrouping = grouping();
    }
    for (const QString &name : m_log.panes(grouping())) {
        QStringList shown;
        for (const QString &line : m_log.lines(grouping(), name))
            if (matches(line))
                shown.push_back(line);
        paneFor(name)->setPlainText(shown.join(QLatin1Char('\n')));
    }
    showOutputPane();
}

} // namespace hetplan::gui
