#include "panels/workload_panel.h"

#include "core/cost/cost_model.h"
#include "core/io/catalog_json.h"
#include "core/io/loaders.h"
#include "core/serving/plan_serving.h"
#include "model/document.h"
#include "results/results_text.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QSpinBox>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace hetplan::gui {

namespace {

// The workload file's limits (core/io/workload_json.cpp): batch and tokens up to 2^24.
constexpr int kMaxBatch = 1 << 24;
constexpr int kMaxTokens = 1 << 24;

// How the latency target is given: the workload's slo_scale or slo_s.
enum class SloUnit { Scale, Seconds };

QSpinBox *countBox(int maximum, QWidget *parent)
{
    auto *box = new QSpinBox(parent);
    box->setRange(1, maximum);
    box->setAccelerated(true);
    return box;
}

void addPrecisions(QComboBox *box)
{
    box->addItem(QStringLiteral("bf16"), int(Precision::Bf16));
    box->addItem(QStringLiteral("fp16"), int(Precision::Fp16));
    box->addItem(QStringLiteral("fp32"), int(Precision::Fp32));
}

void select(QComboBox *box, int data)
{
    box->setCurrentIndex(std::max(0, box->findData(data)));
}

QString describe(const ModelSpec &m)
{
    return WorkloadPanel::tr("%1 layers, hidden %2, %3 heads, %4 B parameters")
        .arg(m.layers)
        .arg(m.hidden)
        .arg(m.heads)
        .arg(m.totalParams() / 1e9, 0, 'f', 1);
}

} // namespace

WorkloadPanel::WorkloadPanel(Document *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
{
    auto *layout = new QVBoxLayout(this);
    auto *top = new QFormLayout;
    m_model = new QComboBox(this);
    for (const ModelSpec &m : builtinModelCatalog().all())
        m_model->addItem(QString::fromStdString(m.name), QString::fromStdString(m.name));
    m_model->insertSeparator(m_model->count());
    m_model->addItem(tr("From a model file…")); // no data: asks for a file
    m_modelSummary = new QLabel(this);
    m_modelSummary->setWordWrap(true);
    m_modelSummary->setForegroundRole(QPalette::PlaceholderText);
    m_mode = new QComboBox(this);
    m_mode->addItem(tr("Training"), int(Mode::Train));
    m_mode->addItem(tr("Inference"), int(Mode::Infer));
    top->addRow(tr("&Model:"), m_model);
    top->addRow(QString(), m_modelSummary);
    top->addRow(tr("M&ode:"), m_mode);
    layout->addLayout(top);

    m_pages = new QStackedWidget(this);
    auto *training = new QWidget(m_pages);
    auto *inference = new QWidget(m_pages);
    buildTraining(training);
    buildInference(inference);
    m_pages->addWidget(training);
    m_pages->addWidget(inference);
    layout->addWidget(m_pages);
    layout->addStretch(1);

    connect(m_model, &QComboBox::activated, this, &WorkloadPanel::chooseModel);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_pages->setCurrentIndex(index);
        applyWorkload(tr("Change mode"), 0);
    });
    // Each field's changes are undone as one step while it keeps the focus: typing 2048 is
    // one step, a second visit another (the session moves on when editing finishes).
    const auto applyOnChange = [this](auto *box, auto valueChanged, const QString &what) {
        const int key = ++m_lastFieldKey;
        connect(box, valueChanged, this,
                [this, key, what] { applyWorkload(what, key + m_mergeSession * kFieldKeys); });
        connect(box, &QAbstractSpinBox::editingFinished, this, [this] { ++m_mergeSession; });
    };
    applyOnChange(m_globalBatch, &QSpinBox::valueChanged, tr("Change global batch"));
    applyOnChange(m_microBatch, &QSpinBox::valueChanged, tr("Change micro-batch"));
    applyOnChange(m_seqLen, &QSpinBox::valueChanged, tr("Change sequence length"));
    applyOnChange(m_promptLen, &QSpinBox::valueChanged, tr("Change prompt length"));
    applyOnChange(m_outputLen, &QSpinBox::valueChanged, tr("Change output length"));
    applyOnChange(m_requestRate, &QDoubleSpinBox::valueChanged, tr("Change request rate"));
    applyOnChange(m_slo, &QDoubleSpinBox::valueChanged, tr("Change latency target"));
    connect(m_sloUnit, &QComboBox::currentIndexChanged, this, &WorkloadPanel::changeSloUnit);
    for (QComboBox *box : {m_precision, m_recompute, m_inferPrecision})
        connect(box, &QComboBox::currentIndexChanged, this, [this, box] {
            applyWorkload(box == m_recompute ? tr("Change recomputation") : tr("Change precision"),
                          0);
        });
    connect(m_document, &Document::settingsChanged, this, &WorkloadPanel::showDocument);
    showDocument();
}

void WorkloadPanel::buildTraining(QWidget *page)
{
    auto *form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    m_globalBatch = countBox(kMaxBatch, page);
    m_globalBatch->setToolTip(tr("Sequences per iteration, over all pipelines"));
    m_microBatch = countBox(1 << 20, page);
    m_microBatch->setToolTip(tr("Sequences per micro-batch"));
    m_seqLen = countBox(kMaxTokens, page);
    m_seqLen->setSuffix(tr(" tokens"));
    m_precision = new QComboBox(page);
    addPrecisions(m_precision);
    m_recompute = new QComboBox(page);
    m_recompute->addItem(tr("None"), int(Recompute::None));
    m_recompute->addItem(tr("Selective"), int(Recompute::Selective));
    m_recompute->addItem(tr("Full"), int(Recompute::Full));
    m_recompute->setToolTip(tr("Activation recomputation: less memory, more compute"));
    form->addRow(tr("&Global batch:"), m_globalBatch);
    form->addRow(tr("Mi&cro-batch:"), m_microBatch);
    form->addRow(tr("&Sequence length:"), m_seqLen);
    form->addRow(tr("&Precision:"), m_precision);
    form->addRow(tr("&Recomputation:"), m_recompute);
}

void WorkloadPanel::buildInference(QWidget *page)
{
    auto *form = new QFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    m_promptLen = countBox(kMaxTokens, page);
    m_promptLen->setSuffix(tr(" tokens"));
    m_outputLen = countBox(kMaxTokens, page);
    m_outputLen->setSuffix(tr(" tokens"));
    m_requestRate = new QDoubleSpinBox(page);
    m_requestRate->setRange(0.001, 1e6);
    m_requestRate->setDecimals(3);
    m_requestRate->setSuffix(tr(" req/s"));
    m_slo = new QDoubleSpinBox(page);
    m_slo->setRange(0.001, 1e6);
    m_slo->setDecimals(3);
    m_slo->setToolTip(tr("Latency target per request (HexGen's SLO)"));
    m_sloUnit = new QComboBox(page);
    m_sloUnit->addItem(tr("× reference latency"), int(SloUnit::Scale));
    m_sloUnit->addItem(tr("seconds"), int(SloUnit::Seconds));
    m_sloUnit->setToolTip(tr("A multiple of one request's latency on 4 A100-40G (HexGen §5.1), "
                             "or seconds"));
    auto *target = new QHBoxLayout;
    target->setContentsMargins(0, 0, 0, 0);
    target->addWidget(m_slo, 1);
    target->addWidget(m_sloUnit);
    auto *targetLabel = new QLabel(tr("Latency &target:"), page);
    targetLabel->setBuddy(m_slo);
    m_sloSeconds = new QLabel(page);
    m_sloSeconds->setObjectName(QStringLiteral("sloSeconds"));
    m_sloSeconds->setWordWrap(true);
    m_sloSeconds->setForegroundRole(QPalette::PlaceholderText);
    m_inferPrecision = new QComboBox(page);
    addPrecisions(m_inferPrecision);
    form->addRow(tr("Pro&mpt length:"), m_promptLen);
    form->addRow(tr("O&utput length:"), m_outputLen);
    form->addRow(tr("Request &rate:"), m_requestRate);
    form->addRow(targetLabel, target);
    form->addRow(QString(), m_sloSeconds);
    form->addRow(tr("Pr&ecision:"), m_inferPrecision);
}

void WorkloadPanel::showDocument()
{
    if (m_showing)
        return;
    m_showing = true;
    const Project p = m_document->project();
    if (p.customModel) {
        const int custom = m_model->count() - 1;
        m_model->setItemText(custom, QString::fromStdString(p.customModel->name));
        m_model->setCurrentIndex(custom);
        m_modelSummary->setText(describe(*p.customModel));
    } else {
        m_model->setItemText(m_model->count() - 1, tr("From a model file…"));
        m_model->setCurrentIndex(m_model->findData(QString::fromStdString(p.modelName)));
        if (auto model = p.model())
            m_modelSummary->setText(describe(*model));
    }
    const Workload &w = p.workload;
    select(m_mode, int(w.mode));
    m_pages->setCurrentIndex(m_mode->currentIndex());
    m_globalBatch->setValue(w.train.globalBatch);
    m_microBatch->setValue(w.train.microBatchSizes.empty() ? 1 : w.train.microBatchSizes.front());
    m_seqLen->setValue(w.train.seqLen);
    select(m_precision, int(w.train.precision));
    select(m_recompute, int(w.train.recompute));
    m_promptLen->setValue(w.infer.promptLen);
    m_outputLen->setValue(w.infer.outputLen);
    m_requestRate->setValue(w.infer.requestRatePerS);
    select(m_sloUnit, int(w.infer.sloS ? SloUnit::Seconds : SloUnit::Scale));
    m_slo->setValue(w.infer.sloS ? *w.infer.sloS : w.infer.sloScale.value_or(kDefaultSloScale));
    select(m_inferPrecision, int(w.infer.precision));
    m_showing = false;
    showSloSeconds();
}

void WorkloadPanel::applyWorkload(const QString &what, int mergeKey)
{
    if (m_showing)
        return;
    Workload w = m_document->project().workload;
    w.mode = Mode(m_mode->currentData().toInt());
    w.train.globalBatch = m_globalBatch->value();
    // Several candidates (from a file) stay until the person picks another micro-batch here.
    if (w.train.microBatchSizes.empty() || w.train.microBatchSizes.front() != m_microBatch->value())
        w.train.microBatchSizes = {m_microBatch->value()};
    w.train.seqLen = m_seqLen->value();
    w.train.precision = Precision(m_precision->currentData().toInt());
    w.train.recompute = Recompute(m_recompute->currentData().toInt());
    w.infer.promptLen = m_promptLen->value();
    w.infer.outputLen = m_outputLen->value();
    w.infer.requestRatePerS = m_requestRate->value();
    const double slo = m_slo->value();
    if (SloUnit(m_sloUnit->currentData().toInt()) == SloUnit::Seconds) {
        w.infer.sloS = slo;
        w.infer.sloScale.reset();
    } else {
        w.infer.sloS.reset();
        // The default scale stays implicit, as the workload file gave it.
        if (w.infer.sloScale || slo != kDefaultSloScale)
            w.infer.sloScale = slo;
    }
    w.infer.precision = Precision(m_inferPrecision->currentData().toInt());
    m_showing = true; // the document echoes the change back
    m_document->setWorkload(w, what, mergeKey);
    m_showing = false;
    showSloSeconds();
}

void WorkloadPanel::changeSloUnit()
{
    if (m_showing)
        return;
    // The same target in the other unit, where the reference latency is known.
    if (const std::optional<double> referenceS = referenceLatencyS(); referenceS > 0) {
        const double value = m_slo->value();
        const QSignalBlocker blocker(m_slo);
        m_slo->setValue(SloUnit(m_sloUnit->currentData().toInt()) == SloUnit::Seconds
                            ? value * *referenceS
                            : value / *referenceS);
    }
    applyWorkload(tr("Change latency target"), 0);
}

std::optional<double> WorkloadPanel::referenceLatencyS() const
{
    const Project p = m_document->project();
    if (p.workload.mode != Mode::Infer)
        return std::nullopt;
    Result<ModelSpec> model = p.model();
    // The reference runs on a cluster of its own; the problem's cluster only has to exist.
    Result<Topology> topology = Topology::build(p.cluster, builtinGpuCatalog());
    if (!model || !topology)
        return std::nullopt;
    const Problem problem{std::move(topology).value(), std::move(model).value(), p.workload};
    return hetplan::referenceLatencyS(problem, *makeCostModel(p.costModel));
}

void WorkloadPanel::showSloSeconds()
{
    const std::optional<double> referenceS = referenceLatencyS();
    if (!referenceS || *referenceS <= 0) {
        m_sloSeconds->clear();
        return;
    }
    const double value = m_slo->value();
    const QString reference = ResultsText::duration(*referenceS);
    if (SloUnit(m_sloUnit->currentData().toInt()) == SloUnit::Seconds)
        m_sloSeconds->setText(tr("= %1 × the reference latency (%2)")
                                  .arg(QLocale().toString(value / *referenceS, 'f', 1), reference));
    else
        m_sloSeconds->setText(tr("= %1 (%2 × the reference latency, %3)")
                                  .arg(ResultsText::duration(value * *referenceS),
                                       QLocale().toString(value, 'g', 3), reference));
}

void WorkloadPanel::chooseModel(int index)
{
    const QVariant name = m_model->itemData(index);
    if (name.isValid()) {
        m_document->setModelName(name.toString().toStdString());
        return;
    }
    const QString path = QFileDialog::getOpenFileName(this, tr("Model File"), QString(),
                                                      tr("Model files (*.json);;All files (*)"));
    if (!path.isEmpty()) {
        auto model = loadModel(QFile::encodeName(path).toStdString());
        if (model)
            m_document->setCustomModel(*model);
        else
            QMessageBox::warning(this, tr("Model File"),
                                 QString::fromStdString(model.error().message));
    }
    showDocument(); // back to what the document holds after a cancel or an error
}

} // namespace hetplan::gui
