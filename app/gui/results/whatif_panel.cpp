#include "results/whatif_panel.h"

#include "results/planning_controller.h"

#include <QElapsedTimer>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QSlider>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace hetplan::gui {

namespace {

constexpr int kDecade = 100; // slider steps per factor of ten

// A link's name ("Link machine-with-a-long-name – eth") cut to the room the row leaves, whole
// in its tooltip, so a narrow panel shrinks the names rather than clipping the values.
class ElidedLabel : public QLabel
{
public:
    explicit ElidedLabel(const QString &text)
        : m_text(text)
    {
        setToolTip(text);
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    }

    QSize sizeHint() const override
    {
        return {fontMetrics().horizontalAdvance(m_text), QLabel::sizeHint().height()};
    }
    QSize minimumSizeHint() const override
    {
        return {fontMetrics().horizontalAdvance(QStringLiteral("Link A…")),
                QLabel::minimumSizeHint().height()};
    }

protected:
    void resizeEvent(QResizeEvent *event) override
    {
        setText(fontMetrics().elidedText(m_text, Qt::ElideRight, event->size().width()));
        QLabel::resizeEvent(event);
    }

private:
    QString m_text;
};

} // namespace

WhatIfPanel::WhatIfPanel(QWidget *parent)
    : QWidget(parent)
    , m_replanner(new PlanningController(this))
{
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("Drag a slider to scale a bandwidth (0.1× to 10×). The current "
                                "plan is re-evaluated at once and re-planned after a pause."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    m_sliderBox = new QWidget;
    m_sliderLayout = new QVBoxLayout(m_sliderBox);
    m_sliderLayout->setContentsMargins(0, 0, 0, 0);
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    // The rows shrink to the width left beside the vertical scroll bar, never past it.
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_sliderBox);
    // Room for the two class sliders and a few links before it scrolls.
    scroll->setMinimumHeight(6 * fontMetrics().height() + 24);
    layout->addWidget(scroll, 3);

    m_currentLabel = new QLabel;
    m_currentLabel->setWordWrap(true);
    m_currentLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_replanLabel = new QLabel;
    m_replanLabel->setWordWrap(true);
    layout->addWidget(m_currentLabel);
    layout->addWidget(m_replanLabel);
    auto *buttons = new QHBoxLayout;
    m_resetButton = new QPushButton(tr("Reset"));
    m_resetButton->setToolTip(tr("Put every bandwidth back as drawn"));
    m_showButton = new QPushButton(tr("Show re-planned plan"));
    buttons->addWidget(m_resetButton);
    buttons->addWidget(m_showButton);
    buttons->addStretch();
    layout->addLayout(buttons);

    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(kDebounceMs);
    connect(m_debounce, &QTimer::timeout, this, &WhatIfPanel::startReplan);
    connect(m_resetButton, &QPushButton::clicked, this, &WhatIfPanel::reset);
    connect(m_showButton, &QPushButton::clicked, this, [this] {
        if (m_replanned)
            Q_EMIT showPlanRequested(*m_replanned);
    });
    connect(m_replanner, &PlanningController::finished, this, &WhatIfPanel::onReplanFinished);
    clear();
}

WhatIfPanel::~WhatIfPanel() = default;

double WhatIfPanel::factorAt(int position)
{
    return std::pow(10.0, double(position) / kDecade);
}

void WhatIfPanel::clear()
{
    m_replanner->cancel();
    m_debounce->stop();
    m_base.reset();
    m_changed.reset();
    m_replanned.reset();
    m_targets.clear();
    rebuildSliders();
    m_currentLabel->setText(tr("Plan first: the sliders change the bandwidths under a plan."));
    m_replanLabel->clear();
    m_resetButton->setEnabled(false);
    m_showButton->setEnabled(false);
}

void WhatIfPanel::setBase(ShownPlan base, CostModelKind costModel, PlannerKind planner)
{
    clear();
    m_base = std::move(base);
    const ShownPlan &shown = *m_base;
    m_costModel = CostModel(costModel);
    m_planner = planner;
    m_targets = bandwidthTargets(shown.problem->topology.cluster());
    rebuildSliders();
    m_resetButton->setEnabled(true);
    m_currentLabel->setText(
        tr("Current plan as drawn: %1").arg(ResultsText::duration(shown.evaluation.iterationS)));
}

void WhatIfPanel::rebuildSliders()
{
    while (QLayoutItem *item = m_sliderLayout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_sliders.clear();
    m_valueLabels.clear();
    if (!m_base)
        return;
    auto *grid = new QWidget;
    auto *layout = new QGridLayout(grid);
    layout->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < int(m_targets.size()); ++i) {
        const BandwidthTarget &target = m_targets[size_t(i)];
        auto *name
            = new ElidedLabel(ResultsText::targetName(m_base->problem->topology.cluster(), target));
        const bool isClass = target.kind == BandwidthTarget::Kind::Network
                             || target.kind == BandwidthTarget::Kind::Intra;
        if (isClass) {
            QFont bold = name->font();
            bold.setBold(true);
            name->setFont(bold);
        }
        auto *slider = new QSlider(Qt::Horizontal);
        slider->setRange(-kDecade, kDecade);
        slider->setPageStep(kDecade / 10);
        slider->setMinimumWidth(60);
        slider->setToolTip(tr("Scale from 0.1× to 10× of the bandwidth as drawn"));
        auto *value = new QLabel;
        value->setMinimumWidth(
            value->fontMetrics().horizontalAdvance(QStringLiteral("000 GB/s (×10.0)")));
        // The name on a row of its own: beside the slider it had a third of the dock's width
        // and was cut off at the default window size.
        layout->addWidget(name, 2 * i, 0, 1, 2);
        layout->addWidget(slider, 2 * i + 1, 0);
        layout->addWidget(value, 2 * i + 1, 1);
        m_sliders.push_back(slider);
        m_valueLabels.push_back(value);
        connect(slider, &QSlider::valueChanged, this, [this] {
            // A class slider changes every link of its class: each row shows its own.
            updateValueLabels();
            reevaluate();
        });
    }
    layout->setColumnStretch(0, 1);
    updateValueLabels();
    m_sliderLayout->addWidget(grid);
    m_sliderLayout->addStretch();
}

int WhatIfPanel::sliderFor(const BandwidthTarget &target) const
{
    for (int i = 0; i < int(m_targets.size()); ++i)
        if (m_targets[size_t(i)] == target)
            return i;
    return -1;
}

QString WhatIfPanel::valueText(int index) const
{
    return m_valueLabels[size_t(index)]->text();
}

void WhatIfPanel::updateValueLabels()
{
    if (!m_base)
        return;
    // The bandwidth each link gets with every slider applied (its own and its class's).
    const Cluster changed = changedCluster();
    for (size_t i = 0; i < m_targets.size(); ++i) {
        const BandwidthTarget &target = m_targets[i];
        const double factor = factorAt(m_sliders[i]->value());
        const QString scale = tr("×%1").arg(QLocale().toString(factor, 'f', factor < 1 ? 2 : 1));
        const bool isClass = target.kind == BandwidthTarget::Kind::Network
                             || target.kind == BandwidthTarget::Kind::Intra;
        m_valueLabels[i]->setText(
            isClass ? scale
                    : tr("%1 (%2)").arg(ResultsText::bandwidth(drawnBandwidthGBps(changed, target)),
                                        scale));
    }
}

std::vector<double> WhatIfPanel::sliderFactors() const
{
    std::vector<double> factors;
    for (const QSlider *slider : m_sliders)
        factors.push_back(factorAt(slider->value()));
    return factors;
}

Cluster WhatIfPanel::changedCluster() const
{
    return scaledCluster(m_base->problem->topology.cluster(), m_targets, sliderFactors());
}

Result<Problem> WhatIfPanel::changedProblem() const
{
    // Slider → cluster edit → topology (docs/architecture.md, "Following a what-if bandwidth").
    auto topology = scaledTopology(m_base->problem->topology, m_targets, sliderFactors());
    if (!topology)
        return topology.error();
    return Problem{std::move(topology).value(), m_base->problem->model, m_base->problem->workload};
}

QString WhatIfPanel::changedText() const
{
    return m_currentLabel->text();
}

void WhatIfPanel::reevaluate()
{
    if (!m_base)
        return;
    QElapsedTimer timer;
    timer.start();
    auto problem = changedProblem();
    if (!problem) {
        m_changed.reset();
        m_currentLabel->setText(QString::fromStdString(problem.error().message));
        return;
    }
    m_changed = m_costModel.evaluate(*problem, m_base->plan);
    m_lastEvaluationMs = double(timer.nsecsElapsed()) / 1e6;
    const double beforeS = m_base->evaluation.iterationS;
    const double afterS = m_changed->iterationS;
    const double change = beforeS > 0 ? (afterS / beforeS - 1) : 0;
    m_currentLabel->setText(tr("Current plan: %1 → %2 (%3%4 %), MFU %5 → %6; evaluated in %7 ms")
                                .arg(ResultsText::duration(beforeS), ResultsText::duration(afterS),
                                     change >= 0 ? QStringLiteral("+") : QString(),
                                     QLocale().toString(100 * change, 'f', 1),
                                     ResultsText::percent(m_base->evaluation.mfu),
                                     ResultsText::percent(m_changed->mfu),
                                     QLocale().toString(m_lastEvaluationMs, 'f', 2)));
    m_replanLabel->setText(tr("Re-planning after a pause…"));
    m_showButton->setEnabled(false);
    Q_EMIT evaluated();
    m_debounce->start();
}

void WhatIfPanel::startReplan()
{
    if (!m_base)
        return;
    auto problem = changedProblem();
    if (!problem)
        return;
    PlanRequest request;
    request.problem = std::move(problem).value();
    request.costModel = m_costModel.kind();
    request.planners = {m_planner};
    request.options.warmStart = m_base->plan;
    m_replanner->start(std::move(request));
}

void WhatIfPanel::onReplanFinished(bool cancelled)
{
    // Cancelled: a newer slider move restarted the re-plan (its own finished() follows), or
    // Reset dropped it.
    if (cancelled || !m_base || m_replanner->outcomes().empty())
        return;
    const PlannerOutcome &outcome = m_replanner->outcomes().front();
    if (!outcome.search) {
        m_replanned.reset();
        m_replanLabel->setText(tr("Re-planning found nothing: %1")
                                   .arg(QString::fromStdString(outcome.error->message)));
        Q_EMIT replanned();
        return;
    }
    auto problem = std::make_shared<const Problem>(m_replanner->request()->problem);
    m_replanned = ShownPlan{problem, outcome.search->plan, outcome.search->evaluation};
    const bool same = outcome.search->plan.sameLayout(m_base->plan);
    m_replanLabel->setText(tr("Re-planned: %1 (as drawn: %2, current plan here: %3); %4")
                               .arg(ResultsText::duration(outcome.search->evaluation.iterationS),
                                    ResultsText::duration(m_base->evaluation.iterationS),
                                    ResultsText::duration(m_changed ? m_changed->iterationS : 0),
                                    same ? tr("same strategy") : tr("the strategy changed")));
    m_showButton->setEnabled(!same);
    Q_EMIT replanned();
}

void WhatIfPanel::reset()
{
    if (!m_base)
        return;
    for (QSlider *slider : m_sliders) {
        const QSignalBlocker block(slider);
        slider->setValue(0);
    }
    updateValueLabels();
    m_debounce->stop();
    m_replanner->cancel();
    m_changed.reset();
    m_replanned.reset();
    m_showButton->setEnabled(false);
    m_replanLabel->clear();
    m_currentLabel->setText(
        tr("Current plan as drawn: %1").arg(ResultsText::duration(m_base->evaluation.iterationS)));
}

} // namespace hetplan::gui
