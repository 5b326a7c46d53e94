#include "results/stale_banner.h"

#include "results/plan_freshness.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace hetplan::gui {

StaleBanner::StaleBanner(QWidget *parent)
    : QFrame(parent)
    , m_label(new QLabel(this))
    , m_reevaluate(new QPushButton(tr("Re-evaluate"), this))
    , m_replan(new QPushButton(tr("Re-plan"), this))
{
    setObjectName(QStringLiteral("staleBanner"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    // The palette's tooltip colours: a notice every style draws readably, light or dark.
    QPalette notice = palette();
    notice.setColor(QPalette::Window, notice.color(QPalette::ToolTipBase));
    notice.setColor(QPalette::WindowText, notice.color(QPalette::ToolTipText));
    setPalette(notice);
    m_label->setWordWrap(true);
    m_reevaluate->setToolTip(
        tr("Evaluate this plan for the cluster, model and workload as they are now"));
    m_replan->setToolTip(tr("Search for the best plan for the cluster as it is now"));
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 8, 4);
    row->addWidget(m_label, 1);
    row->addWidget(m_reevaluate);
    row->addWidget(m_replan);
    connect(m_reevaluate, &QPushButton::clicked, this, &StaleBanner::reevaluateRequested);
    connect(m_replan, &QPushButton::clicked, this, &StaleBanner::replanRequested);
    hide();
}

void StaleBanner::setFreshness(const PlanFreshness &freshness)
{
    setVisible(freshness.outOfDate());
    if (!freshness.outOfDate())
        return;
    m_label->setText(tr("<b>Out of date:</b> %1. The figures below are for the plan as it was "
                        "made.")
                         .arg(freshness.reasons()));
    // A plan whose GPUs are gone can only be re-planned.
    m_reevaluate->setEnabled(freshness.missingGpus.isEmpty());
}

QString StaleBanner::text() const
{
    return m_label->text();
}

QWidget *StaleBanner::above(StaleBanner *banner, QWidget *content)
{
    auto *box = new QWidget;
    auto *column = new QVBoxLayout(box);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(banner);
    column->addWidget(content, 1);
    return box;
}

} // namespace hetplan::gui
