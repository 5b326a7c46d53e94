#include "launch/launch_panel.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace hetplan::gui {

namespace {

constexpr int kClockIntervalMs = 500;
constexpr int kDefaultScale = 64; // a CPU-sized model, as the runtime's tests run it
constexpr int kDefaultIterations = 3;
// A serving launch's requests: enough for percentiles, few enough for a CPU run of a scaled model.
constexpr int kDefaultRequests = 32;
const QString kPreflightFirstKey = QStringLiteral("launch/preflightFirst");

QString elapsedText(qint64 ms)
{
    const qint64 s = ms / 1000;
    return QStringLiteral("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
}

QString secondsText(qint64 ms)
{
    return QStringLiteral("%1 s").arg(double(ms) / 1000, 0, 'f', 1);
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
    , m_trainOptions(new QWidget(this))
    , m_serveOptions(new QWidget(this))
    , m_requests(new QSpinBox(this))
    , m_rate(new QDoubleSpinBox(this))
    , m_seed(new QSpinBox(this))
    , m_preflightFirst(new QCheckBox(tr("Pre-flight first"), this))
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
    m_requests->setObjectName(QStringLiteral("launchRequests"));
    m_rate->setObjectName(QStringLiteral("launchRate"));
    m_seed->setObjectName(QStringLiteral("launchSeed"));
    m_preflightFirst->setObjectName(QStringLiteral("launchPreflightFirst"));
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
    m_requests->setRange(1, 1 << 20);
    m_requests->setValue(kDefaultRequests);
    m_requests->setToolTip(tr("How many requests the replicas serve"));
    m_rate->setRange(0.001, 1e6);
    m_rate->setDecimals(3);
    m_rate->setSuffix(tr(" /s"));
    m_rate->setToolTip(tr("Poisson arrivals at this rate; it starts at the workload's"));
    m_seed->setRange(0, 1 << 30);
    m_seed->setToolTip(tr("Seeds the arrivals and the sampling"));
    m_preflightFirst->setToolTip(
        tr("Before launching, check every group's link at the plan's message sizes and show "
           "what each achieved beside what the plan assumes"));
    m_preflightFirst->setChecked(QSettings().value(kPreflightFirstKey, true).toBool());

    auto *top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    top->addWidget(new QLabel(tr("Scale"), this));
    top->addWidget(m_scale);
    auto *train = new QHBoxLayout(m_trainOptions);
    train->setContentsMargins(0, 0, 0, 0);
    train->addWidget(new QLabel(tr("Iterations"), m_trainOptions));
    train->addWidget(m_iterations);
    top->addWidget(m_trainOptions);
    auto *serve = new QHBoxLayout(m_serveOptions);
    serve->setContentsMargins(0, 0, 0, 0);
    serve->addWidget(new QLabel(tr("Requests"), m_serveOptions));
    serve->addWidget(m_requests);
    serve->addWidget(new QLabel(tr("Rate"), m_serveOptions));
    serve->addWidget(m_rate);
    serve->addWidget(new QLabel(tr("Seed"), m_serveOptions));
    serve->addWidget(m_seed);
    top->addWidget(m_serveOptions);
    m_serveOptions->hide();
    top->addWidget(m_preflightFirst);
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
    connect(m_cancel, &QPushButton::clicked, this, &LaunchPanel::requestCancel);
    connect(m_byHost, &QCheckBox::toggled, this, &LaunchPanel::rebuild);
    connect(m_preflightFirst, &QCheckBox::toggled, this,
            [](bool on) { QSettings().setValue(kPreflightFirstKey, on); });
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

void LaunchPanel::setServingPlan(bool serving, double requestRatePerS)
{
    m_trainOptions->setVisible(!serving);
    m_serveOptions->setVisible(serving);
    if (serving && requestRatePerS > 0)
        m_rate->setValue(requestRatePerS);
}

bool LaunchPanel::isServingPlan() const
{
    return !m_serveOptions->isHidden();
}

LaunchServing LaunchPanel::serving() const
{
    LaunchServing options;
    options.requests = m_requests->value();
    options.rate = m_rate->value();
    return options;
}

int LaunchPanel::seed() const
{
    return m_seed->value();
}

bool LaunchPanel::preflightFirst() const
{
    return m_preflightFirst->isChecked();
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

void LaunchPanel::startJob(const QString &description,
                           const std::vector<LaunchLog::RankPlace> &ranks)
{
    m_log.clear();
    m_log.setRanks(ranks);
    m_ranks = ranks;
    m_hosts.clear();
    for (const LaunchLog::RankPlace &place : ranks)
        if (!m_hosts.contains(place.host))
            m_hosts.push_back(place.host);
    clearPanes();
    m_description = description;
    m_error->hide();
    m_running = true;
    m_endedMs = -1;
    m_cancelledAtMs = -1;
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

void LaunchPanel::requestCancel()
{
    if (!m_running || m_cancelledAtMs >= 0)
        return;
    m_cancelledAtMs = m_elapsed.elapsed();
    m_cancel->setEnabled(false);
    addJobLine(tr("cancelling: stopping every rank on %n host(s)…", nullptr, int(m_hosts.size())));
    updateStatus();
    Q_EMIT cancelRequested();
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
    if (phase == JobPhase::Cancelled && m_cancelledAtMs >= 0)
        addJobLine(tr("cancelled: every rank was stopped; stopping took %1")
                       .arg(secondsText(m_endedMs - m_cancelledAtMs)));
    else
        addJobLine(tr("%1 after %2").arg(phaseName(phase), elapsedText(m_endedMs)));
    // Kept in the job's pane too, beside what the ranks printed before it.
    if (!error.isEmpty())
        addJobLine(error);
    updateStatus();
}

QString LaunchPanel::hostsWithRanks() const
{
    QStringList parts;
    for (const QString &host : m_hosts) {
        std::vector<int> ranks;
        for (const LaunchLog::RankPlace &place : m_ranks)
            if (place.host == host)
                ranks.push_back(place.rank);
        // Consecutive ranks as one run: "0–7, 12".
        QStringList runs;
        for (std::size_t i = 0; i < ranks.size();) {
            std::size_t last = i;
            while (last + 1 < ranks.size() && ranks[last + 1] == ranks[last] + 1)
                ++last;
            runs.push_back(last == i ? QString::number(ranks[i])
                                     : QStringLiteral("%1–%2").arg(ranks[i]).arg(ranks[last]));
            i = last + 1;
        }
        parts.push_back(ranks.size() == 1
                            ? tr("%1 (rank %2)").arg(host, runs.join(QString()))
                            : tr("%1 (ranks %2)").arg(host, runs.join(QStringLiteral(", "))));
    }
    return parts.join(QStringLiteral(", "));
}

QString LaunchPanel::phaseLine(JobPhase phase) const
{
    const int hosts = int(m_hosts.size());
    const QString names = m_hosts.join(QStringLiteral(", "));
    switch (phase) {
    case JobPhase::Connecting:
        return tr("connecting to %n host(s) and checking them: %1", nullptr, hosts).arg(names);
    case JobPhase::Uploading:
        return tr("uploading the job's files to %n host(s): %1", nullptr, hosts).arg(names);
    case JobPhase::Running:
        return tr("running %n rank(s) on %1", nullptr, int(m_ranks.size())).arg(hostsWithRanks());
    case JobPhase::Done:
    case JobPhase::Failed:
    case JobPhase::Cancelled:
        break; // endJob() tells how it ended, with the error
    }
    return {};
}

void LaunchPanel::updateStatus()
{
    if (!m_elapsed.isValid())
        return;
    const qint64 ms = m_running ? m_elapsed.elapsed() : m_endedMs;
    const QString phase
        = m_running && m_cancelledAtMs >= 0 ? tr("cancelling…") : phaseName(m_phase);
    m_status->setText(tr("%1 · %2 · %3").arg(m_description, phase, elapsedText(ms)));
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
    if (name != LaunchLog::jobPane())
        edit->setPlaceholderText(tr("Nothing printed yet"));
    const int tab = m_tabs->addTab(edit, m_log.title(grouping(), name));
    m_tabs->setTabToolTip(tab, m_log.toolTip(grouping(), name));
    m_panes[name] = edit;
    return edit;
}

QString LaunchPanel::stamped(const QString &text) const
{
    const qint64 ms = m_running || m_endedMs < 0 ? m_elapsed.elapsed() : m_endedMs;
    return QStringLiteral("%1  %2").arg(elapsedText(ms), text);
}

void LaunchPanel::addJobLine(const QString &text)
{
    appendLines({m_log.addJobLine(stamped(text))});
}

void LaunchPanel::addEvents(const std::vector<LaunchEvent> &events)
{
    std::vector<LaunchLog::Line> lines;
    for (const LaunchEvent &event : events) {
        switch (event.kind) {
        case LaunchEvent::Kind::Phase:
            if (const QString text = phaseLine(event.phase); !text.isEmpty())
                lines.push_back(m_log.addJobLine(stamped(text)));
            break;
        case LaunchEvent::Kind::Message: {
            const QString host = QString::fromStdString(event.host);
            QString text = QString::fromStdString(event.text).trimmed();
            if (!host.isEmpty() && !text.contains(host))
                text = host + QStringLiteral(": ") + text;
            lines.push_back(m_log.addJobLine(stamped(text)));
            break;
        }
        case LaunchEvent::Kind::Output:
            for (LaunchLog::Line &line : m_log.add(event))
                lines.push_back(std::move(line));
            break;
        case LaunchEvent::Kind::UnknownKey:
            break; // asked about once the job has stopped (LaunchActions)
        }
    }
    appendLines(lines);
}

void LaunchPanel::appendLines(const std::vector<LaunchLog::Line> &lines)
{
    // One append per pane per batch: appending line by line re-lays out the pane each time.
    std::map<QString, QStringList> added;
    const bool byHost = grouping() == LaunchLog::Grouping::Host;
    for (const LaunchLog::Line &line : lines) {
        const QString &text = byHost ? line.hostText : line.rankText;
        QStringList &kept = added[byHost ? line.hostPane : line.rankPane];
        if (matches(text))
            kept.push_back(text);
    }
    for (const auto &[name, kept] : added) {
        QPlainTextEdit *edit = paneFor(name);
        if (!kept.isEmpty())
            edit->appendPlainText(kept.join(QLatin1Char('\n')));
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
}

} // namespace hetplan::gui
