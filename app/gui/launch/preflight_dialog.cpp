#include "launch/preflight_dialog.h"

#include "canvas/canvas_style.h"
#include "canvas/link_verdicts.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace hetplan::gui {

namespace {

constexpr int kVerdictWidthPx = 420;
constexpr int kDialogWidthPx = 1120;
constexpr int kMaxDialogHeightPx = 640;
constexpr int kDialogChromePx = 140; // the summary, the buttons and the margins

QString machineOf(const std::string &gpu)
{
    return QString::fromStdString(gpu.substr(0, gpu.rfind(':')));
}

QString membersText(const PreflightRow &row)
{
    if (row.isHop())
        return QStringLiteral("%1 → %2").arg(QString::fromStdString(row.fromGpu),
                                             QString::fromStdString(row.toGpu));
    QStringList gpus;
    for (const PreflightMember &m : row.members)
        gpus.push_back(QString::fromStdString(m.gpu));
    return gpus.join(QStringLiteral(", "));
}

QString membersToolTip(const PreflightRow &row)
{
    QStringList lines;
    for (const PreflightMember &m : row.members)
        lines.push_back(PreflightDialog::tr("%1: rank %2 on %3")
                            .arg(QString::fromStdString(m.gpu))
                            .arg(m.rank)
                            .arg(QString::fromStdString(m.host)));
    return lines.join(u'\n');
}

// The kinds of the links the check crosses, or the machine's own link within one machine.
QString linksText(const PreflightRow &row, const Cluster &cluster)
{
    std::set<QString> machines;
    for (const PreflightMember &m : row.members)
        machines.insert(machineOf(m.gpu));
    if (machines.size() == 1) {
        for (const Machine &m : cluster.machines)
            if (QString::fromStdString(m.name) == *machines.begin())
                return PreflightDialog::tr("%1 within %2")
                    .arg(CanvasStyle::linkKindName(m.intra.kind), *machines.begin());
        return {};
    }
    QStringList kinds;
    for (int link : checkLinks(cluster, row)) {
        const QString kind = CanvasStyle::linkKindName(cluster.links[std::size_t(link)].kind);
        if (!kinds.contains(kind))
            kinds.push_back(kind);
    }
    return kinds.join(QStringLiteral(" + "));
}

// The backend's transport the check ran over ("gloo tcp", "nccl"), over the links it crossed.
QString transportText(const PreflightRow &row, const Cluster &cluster)
{
    QString links = linksText(row, cluster);
    if (row.transport.empty())
        return links;
    const QString transport = QString::fromStdString(row.transport);
    return links.isEmpty() ? transport : PreflightDialog::tr("%1 over %2").arg(transport, links);
}

// "16 MiB", "1.5 KiB": the message sizes the plan sends.
QString bytesText(double bytes)
{
    const QLocale locale;
    if (bytes >= 1024.0 * 1024.0)
        return PreflightDialog::tr("%1 MiB").arg(
            locale.toString(bytes / (1024.0 * 1024.0), 'g', 3));
    if (bytes >= 1024.0)
        return PreflightDialog::tr("%1 KiB").arg(locale.toString(bytes / 1024.0, 'g', 3));
    return PreflightDialog::tr("%1 B").arg(locale.toString(bytes, 'g', 3));
}

QString gbpsText(std::optional<double> bytesPerS)
{
    return bytesPerS ? CanvasStyle::bandwidthText(*bytesPerS / 1e9) : QStringLiteral("–");
}

QString latencyText(std::optional<double> seconds)
{
    return seconds ? CanvasStyle::latencyText(*seconds * 1e6) : QStringLiteral("–");
}

} // namespace

PreflightDialog::PreflightDialog(const PreflightReport &report, const Cluster &cluster,
                                 int foldablePairs, QWidget *parent)
    : QDialog(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
    , m_launch(new QPushButton(tr("&Launch Anyway"), this))
    , m_fold(new QPushButton(tr("&Fold into Cluster and Re-plan"), this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    setObjectName(QStringLiteral("preflightDialog"));
    setWindowTitle(tr("Pre-flight"));
    m_table->setObjectName(QStringLiteral("preflightTable"));
    m_launch->setObjectName(QStringLiteral("preflightLaunch"));
    m_fold->setObjectName(QStringLiteral("preflightFold"));
    m_cancel->setObjectName(QStringLiteral("preflightCancel"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_table->setHorizontalHeaderLabels({tr("Group"), tr("Members"), tr("Transport"), tr("Message"),
                                        tr("Achieved"), tr("Latency"), tr("Assumed"),
                                        tr("Assumed latency"), tr("Verdict")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    fill(report, cluster);

    m_fold->setEnabled(foldablePairs > 0);
    m_fold->setToolTip(
        foldablePairs > 0
            ? tr("Write the %n measured pair(s) between machines into the cluster as measured "
                 "figures (source pre-flight) and plan again; one Undo restores both",
                 nullptr, foldablePairs)
            : tr("No pair between two machines was measured"));
    m_launch->setToolTip(tr("Start the job on the cluster as it is"));
    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_fold, QDialogButtonBox::ActionRole);
    buttons->addButton(m_launch, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);
    connect(m_launch, &QPushButton::clicked, this, &PreflightDialog::confirmLaunch);
    connect(m_fold, &QPushButton::clicked, this, [this] {
        m_choice = Choice::Fold;
        accept();
    });
    connect(m_cancel, &QPushButton::clicked, this, &QDialog::reject);
    // A broken link makes Cancel the default; Launch needs a deliberate click.
    (m_broken > 0 ? m_cancel : m_launch)->setDefault(true);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    // As tall as the rows need, up to a screenful's share.
    int rowsPx = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    for (int r = 0; r < m_table->rowCount(); ++r)
        rowsPx += m_table->rowHeight(r);
    resize(kDialogWidthPx, std::min(kMaxDialogHeightPx, rowsPx + kDialogChromePx));
}

QString PreflightDialog::verdictText(const PreflightRow &row)
{
    switch (row.verdict) {
    case PreflightVerdict::Ok:
        return tr("ok");
    case PreflightVerdict::Slow:
        return tr("slow by %1").arg(CanvasStyle::ratioText(row.slowBy));
    case PreflightVerdict::Hung:
        return tr("hung: %1").arg(QString::fromStdString(row.detail));
    case PreflightVerdict::Failed:
        return tr("failed: %1").arg(QString::fromStdString(row.detail));
    }
    return {};
}

void PreflightDialog::fill(const PreflightReport &report, const Cluster &cluster)
{
    int ok = 0;
    int slow = 0;
    m_table->setRowCount(int(report.rows.size()));
    for (int r = 0; r < int(report.rows.size()); ++r) {
        const PreflightRow &row = report.rows[std::size_t(r)];
        const QString cells[ColumnCount] = {
            QString::fromStdString(row.group),
            membersText(row),
            transportText(row, cluster),
            bytesText(row.messageBytes),
            gbpsText(row.achievedBytesPerS),
            latencyText(row.latencyS),
            gbpsText(row.assumedBytesPerS),
            latencyText(row.assumedLatencyS),
            verdictText(row),
        };
        for (int c = 0; c < ColumnCount; ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            if (c >= Message && c <= AssumedLatency)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, item);
        }
        m_table->item(r, Members)->setToolTip(membersToolTip(row));
        QTableWidgetItem *verdict = m_table->item(r, Verdict);
        verdict->setToolTip(cells[Verdict]);
        QColor tint = CanvasStyle::verdictColor(row.verdict);
        tint.setAlpha(60);
        verdict->setBackground(tint);
        switch (row.verdict) {
        case PreflightVerdict::Ok:
            ++ok;
            break;
        case PreflightVerdict::Slow:
            ++slow;
            break;
        case PreflightVerdict::Hung:
        case PreflightVerdict::Failed:
            ++m_broken;
            break;
        }
    }
    m_table->resizeColumnsToContents();
    // Whole verdicts, wrapped: a hung check names who did not answer, and that is its point.
    m_table->setColumnWidth(Verdict, std::min(m_table->columnWidth(Verdict), kVerdictWidthPx));
    m_table->setWordWrap(true);
    m_table->resizeRowsToContents();
    QStringList transports;
    for (const PreflightRow &row : report.rows)
        if (!row.transport.empty() && !transports.contains(QString::fromStdString(row.transport)))
            transports.push_back(QString::fromStdString(row.transport));
    QString summary = tr("Checks: %1 ok, %2 slow, %3 hung or failed; the pre-flight took %4 s.")
                          .arg(ok)
                          .arg(slow)
                          .arg(m_broken)
                          .arg(report.wallS, 0, 'f', 1);
    if (!transports.isEmpty())
        summary += u' ' + tr("Transport: %1.").arg(transports.join(QStringLiteral(", ")));
    if (!report.jobError.empty()) {
        ++m_broken;
        summary += u' ' + tr("The job failed: %1").arg(QString::fromStdString(report.jobError));
    }
    if (slow > 0)
        summary += u' '
                   + tr("Slow: achieved under half of what the plan assumes, so the plan's "
                        "prediction is too optimistic there.");
    m_summary->setText(summary);
}

void PreflightDialog::confirmLaunch()
{
    if (m_broken > 0) {
        QMessageBox box(QMessageBox::Warning, tr("Launch Anyway"),
                        tr("%1 of the checks hung or failed: the job will most likely hang or "
                           "fail the same way.")
                            .arg(m_broken),
                        QMessageBox::NoButton, this);
        box.setObjectName(QStringLiteral("preflightConfirmLaunch"));
        box.setInformativeText(tr("Launch anyway?"));
        QPushButton *yes = box.addButton(tr("&Launch"), QMessageBox::AcceptRole);
        yes->setObjectName(QStringLiteral("preflightConfirmYes"));
        box.addButton(QMessageBox::Cancel)->setObjectName(QStringLiteral("preflightConfirmNo"));
        box.setDefaultButton(QMessageBox::Cancel);
        box.exec();
        if (box.clickedButton() != yes)
            return;
    }
    m_choice = Choice::Launch;
    accept();
}

} // namespace hetplan::gui
