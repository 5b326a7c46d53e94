#include "canvas/verdict_legend.h"

#include "canvas/canvas_style.h"
#include "canvas/cluster_scene.h"
#include "canvas/cluster_view.h"
#include "core/io/project_json.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>

namespace hetplan::gui {

namespace {

constexpr int kMarginPx = 8;

QString swatch(PreflightVerdict verdict, const QString &name)
{
    return QStringLiteral("<span style=\"color:%1; font-weight:bold\">━━</span> %2")
        .arg(CanvasStyle::verdictColor(verdict).name(), name.toHtmlEscaped());
}

} // namespace

VerdictLegend::VerdictLegend(ClusterView *view)
    : QFrame(view)
    , m_scene(view->clusterScene())
    , m_text(new QLabel(this))
    , m_clear(new QPushButton(tr("Clear"), this))
{
    setObjectName(QStringLiteral("verdictLegend"));
    m_clear->setObjectName(QStringLiteral("verdictLegendClear"));
    m_clear->setToolTip(tr("Draw the links by their kind again"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    m_text->setTextFormat(Qt::RichText);
    m_text->setText(tr("Links by the last pre-flight: %1 %2 %3 (hover a link for its checks)")
                        .arg(swatch(PreflightVerdict::Ok, tr("ok")),
                             swatch(PreflightVerdict::Slow, tr("slow")),
                             swatch(PreflightVerdict::Hung, tr("hung or failed"))));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(kMarginPx, 4, 4, 4);
    layout->addWidget(m_text);
    layout->addWidget(m_clear);
    move(kMarginPx, kMarginPx);
    hide();
    connect(m_clear, &QPushButton::clicked, this, &VerdictLegend::clear);
    connect(m_scene->model(), &ClusterModel::clusterChanged, this,
            &VerdictLegend::onClusterChanged);
}

void VerdictLegend::showReport(const PreflightReport &report)
{
    m_report = report;
    m_checked = m_scene->model()->cluster();
    colour(true);
}

void VerdictLegend::clear()
{
    m_report.reset();
    colour(false);
}

void VerdictLegend::colour(bool on)
{
    m_scene->setLinkVerdicts(on && m_report ? linkVerdicts(m_checked, *m_report)
                                            : std::map<int, LinkVerdict>{});
    if (!m_scene->hasLinkVerdicts()) {
        hide();
        return;
    }
    adjustSize();
    show();
    raise();
}

void VerdictLegend::onClusterChanged()
{
    if (!m_report)
        return;
    const bool same = samePlanningCluster(m_scene->model()->cluster(), m_checked);
    if (same != m_scene->hasLinkVerdicts())
        colour(same);
}

} // namespace hetplan::gui
