#include "inspector/machine_editor.h"

#include "canvas/canvas_style.h"
#include "core/io/catalog_json.h"
#include "inspector/inspector_field.h"
#include "inspector/measured_mark.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QUndoStack>

#include <algorithm>

namespace hetplan::gui {

namespace {

constexpr LinkKind kIntraKinds[]
    = {LinkKind::NvLink, LinkKind::Pcie, LinkKind::Ethernet, LinkKind::InfiniBand, LinkKind::Roce};
constexpr NicKind kNicKinds[] = {NicKind::Ethernet, NicKind::InfiniBand, NicKind::Roce};
// The GPU combo's last entry: make a custom type.
constexpr int kNewTypeData = -1;

} // namespace

MachineEditor::MachineEditor(ClusterModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
{
    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

    m_name = makeLineEdit(QStringLiteral("machineName"), this);
    m_gpu = new QComboBox(this);
    m_gpu->setObjectName(QStringLiteral("gpuType"));
    m_gpu->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_gpu->setMinimumContentsLength(10);
    m_count = makeLineEdit(QStringLiteral("machineCount"), this);
    m_gpuInfo = new QLabel(this);
    m_gpuInfo->setWordWrap(true);
    m_gpuInfo->setForegroundRole(QPalette::PlaceholderText);

    FieldRow *nameRow = addRow(tr("Name"), m_name);
    FieldRow *gpuRow = addRow(tr("GPU type"), m_gpu);
    form->addRow(QString(), m_gpuInfo);
    FieldRow *countRow = addRow(tr("GPUs"), m_count);

    m_customBox = new QGroupBox(tr("Custom GPU type"), this);
    auto *customForm = new QFormLayout(m_customBox);
    m_tflops = makeLineEdit(QStringLiteral("customTflops"), m_customBox);
    m_memoryGiB = makeLineEdit(QStringLiteral("customMemory"), m_customBox);
    m_memoryBandwidthGBps = makeLineEdit(QStringLiteral("customMemoryBandwidth"), m_customBox);
    const auto customRow = [&](const QString &label, QLineEdit *edit) {
        auto *row = new FieldRow(edit, m_customBox);
        customForm->addRow(label, row);
        m_rows.push_back(row);
        return row;
    };
    FieldRow *tflopsRow = customRow(tr("TFLOPS"), m_tflops);
    FieldRow *memoryRow = customRow(tr("Memory (GiB)"), m_memoryGiB);
    FieldRow *membwRow = customRow(tr("Memory bandwidth (GB/s)"), m_memoryBandwidthGBps);
    form->addRow(m_customBox);

    m_intraKind = new QComboBox(this);
    m_intraKind->setObjectName(QStringLiteral("intraKind"));
    for (const LinkKind kind : kIntraKinds)
        m_intraKind->addItem(CanvasStyle::linkKindName(kind), static_cast<int>(kind));
    m_intraBandwidthGBps = makeLineEdit(QStringLiteral("intraBandwidth"), this);
    m_intraLatencyUs = makeLineEdit(QStringLiteral("intraLatency"), this);
    m_nic = new QComboBox(this);
    m_nic->setObjectName(QStringLiteral("nicKind"));
    for (const NicKind kind : kNicKinds)
        m_nic->addItem(CanvasStyle::nicKindName(kind), static_cast<int>(kind));
    m_host = makeLineEdit(QStringLiteral("sshHost"), this);
    m_host->setPlaceholderText(tr("user@host, for launching"));

    FieldRow *intraKindRow = addRow(tr("Link between GPUs"), m_intraKind);
    FieldRow *intraBwRow = addRow(tr("Bandwidth (GB/s)"), m_intraBandwidthGBps);
    FieldRow *intraLatRow = addRow(tr("Latency (µs)"), m_intraLatencyUs);
    FieldRow *nicRow = addRow(tr("NIC"), m_nic);
    FieldRow *hostRow = addRow(tr("SSH host"), m_host);

    connect(m_name, &QLineEdit::editingFinished, this, [this, nameRow] {
        commit(nameRow, [this](Machine &m) {
            m.name = m_name->text().trimmed().toStdString();
            return okStatus();
        });
    });
    connect(m_count, &QLineEdit::editingFinished, this, [this, countRow] {
        commit(countRow, [this](Machine &m) -> Status {
            const std::optional<int> count = parseInteger(m_count->text());
            if (!count)
                return badInput(tr("Enter a whole number of GPUs, e.g. 8.").toStdString());
            m.count = *count;
            return okStatus();
        });
    });
    connect(m_gpu, &QComboBox::activated, this, [this, gpuRow](int index) {
        gpuRow->clearError();
        chooseGpuType(index);
    });
    connect(m_tflops, &QLineEdit::editingFinished, this, [this, tflopsRow] {
        commitGpuSpec(tflopsRow, [](GpuType &t, double v) { t.tflops = v; });
    });
    connect(m_memoryGiB, &QLineEdit::editingFinished, this, [this, memoryRow] {
        commitGpuSpec(memoryRow, [](GpuType &t, double v) { t.memoryGiB = v; });
    });
    connect(m_memoryBandwidthGBps, &QLineEdit::editingFinished, this, [this, membwRow] {
        commitGpuSpec(membwRow, [](GpuType &t, double v) { t.memoryBandwidthGBps = v; });
    });
    connect(m_intraKind, &QComboBox::activated, this, [this, intraKindRow] {
        commit(intraKindRow, [this](Machine &m) {
            m.intra.kind = static_cast<LinkKind>(m_intraKind->currentData().toInt());
            return okStatus();
        });
    });
    connect(m_intraBandwidthGBps, &QLineEdit::editingFinished, this, [this, intraBwRow] {
        commitNumber(intraBwRow, [](Machine &m, double v) { m.intra.bandwidthGBps = v; });
    });
    connect(m_intraLatencyUs, &QLineEdit::editingFinished, this, [this, intraLatRow] {
        commitNumber(intraLatRow, [](Machine &m, double v) { m.intra.latencyUs = v; });
    });
    connect(m_nic, &QComboBox::activated, this, [this, nicRow] {
        commit(nicRow, [this](Machine &m) {
            m.nic = static_cast<NicKind>(m_nic->currentData().toInt());
            return okStatus();
        });
    });
    connect(m_host, &QLineEdit::editingFinished, this, [this, hostRow] {
        commit(hostRow, [this](Machine &m) {
            m.host = m_host->text().trimmed().toStdString();
            return okStatus();
        });
    });
}

FieldRow *MachineEditor::addRow(const QString &label, QWidget *editor)
{
    auto *row = new FieldRow(editor, this);
    static_cast<QFormLayout *>(layout())->addRow(label, row);
    m_rows.push_back(row);
    return row;
}

void MachineEditor::setMachine(ItemId id)
{
    m_id = id;
    for (FieldRow *row : m_rows)
        row->clearError();
    refresh();
}

const GpuType *MachineEditor::customType() const
{
    const Machine *m = m_model->machine(m_id);
    if (!m)
        return nullptr;
    for (const GpuType &t : m_model->cluster().gpuTypes)
        if (t.name == m->gpu)
            return &t;
    return nullptr;
}

void MachineEditor::fillGpuTypes()
{
    m_gpu->clear();
    for (const GpuType &t : m_model->cluster().gpuTypes)
        m_gpu->addItem(tr("%1 (custom)").arg(QString::fromStdString(t.name)),
                       QString::fromStdString(t.name));
    if (m_gpu->count() > 0)
        m_gpu->insertSeparator(m_gpu->count());
    for (const GpuType &t : builtinGpuCatalog().all())
        m_gpu->addItem(QString::fromStdString(t.name), QString::fromStdString(t.name));
    m_gpu->insertSeparator(m_gpu->count());
    m_gpu->addItem(tr("New custom type…"), kNewTypeData);
}

void MachineEditor::refresh()
{
    const Machine *m = m_model->machine(m_id);
    if (!m)
        return;
    m_loading = true;
    const auto load = [](QLineEdit *edit, const QString &text) {
        auto *row = static_cast<FieldRow *>(edit->parentWidget());
        if (!row->hasError() && edit->text() != text)
            edit->setText(text);
    };
    load(m_name, QString::fromStdString(m->name));
    load(m_count, QString::number(m->count));
    load(m_intraBandwidthGBps, formatNumber(m->intra.bandwidthGBps));
    load(m_intraLatencyUs, formatNumber(m->intra.latencyUs));
    load(m_host, QString::fromStdString(m->host));
    fillGpuTypes();
    m_gpu->setCurrentIndex(m_gpu->findData(QString::fromStdString(m->gpu)));
    m_intraKind->setCurrentIndex(m_intraKind->findData(static_cast<int>(m->intra.kind)));
    m_nic->setCurrentIndex(m_nic->findData(static_cast<int>(m->nic)));

    const GpuType *custom = customType();
    const GpuType *type = custom ? custom : builtinGpuCatalog().find(m->gpu);
    m_customBox->setVisible(custom != nullptr);
    if (custom) {
        load(m_tflops, formatNumber(custom->tflops));
        load(m_memoryGiB, formatNumber(custom->memoryGiB));
        load(m_memoryBandwidthGBps, formatNumber(custom->memoryBandwidthGBps));
    }
    markMeasured(*m, custom);
    m_gpuInfo->setText(type ? tr("%1 TFLOPS, %2 GiB, %3 memory bandwidth per GPU")
                                  .arg(formatNumber(type->tflops), formatNumber(type->memoryGiB),
                                       CanvasStyle::bandwidthText(type->memoryBandwidthGBps))
                            : QString());
    m_loading = false;
}

void MachineEditor::markMeasured(const Machine &m, const GpuType *custom)
{
    const Cluster &cluster = m_model->cluster();
    const std::string intra = "/machines/" + m.name + "/intra/";
    MeasuredMark::apply(m_intraKind, MeasuredMark::note(cluster, intra + "kind"));
    MeasuredMark::apply(m_intraBandwidthGBps,
                        MeasuredMark::note(cluster, intra + "bandwidth_GBps"));
    MeasuredMark::apply(m_intraLatencyUs, MeasuredMark::note(cluster, intra + "latency_us"));
    const std::string type = "/gpu_types/" + m.gpu + "/";
    MeasuredMark::apply(m_gpu, MeasuredMark::note(cluster, type + "achieved_fraction"));
    if (!custom)
        return;
    MeasuredMark::apply(m_tflops, MeasuredMark::note(cluster, type + "tflops"));
    MeasuredMark::apply(m_memoryGiB, MeasuredMark::note(cluster, type + "memory_GiB"));
    MeasuredMark::apply(m_memoryBandwidthGBps, MeasuredMark::note(cluster, type + "membw_GBps"));
}

void MachineEditor::commit(FieldRow *row, const std::function<Status(Machine &)> &edit)
{
    const Machine *current = m_model->machine(m_id);
    if (m_loading || !current)
        return;
    Machine value = *current;
    if (Status parsed = edit(value); !parsed) {
        row->report(parsed);
        return;
    }
    if (row->report(m_model->updateMachine(m_id, value)))
        refresh();
}

void MachineEditor::commitNumber(FieldRow *row, const std::function<void(Machine &, double)> &set)
{
    auto *edit = static_cast<QLineEdit *>(row->editor());
    commit(row, [&](Machine &m) -> Status {
        const std::optional<double> value = parseNumber(edit->text());
        if (!value)
            return badInput(tr("Enter a number, e.g. 25 or 0.7.").toStdString());
        set(m, *value);
        return okStatus();
    });
}

void MachineEditor::commitGpuSpec(FieldRow *row, const std::function<void(GpuType &, double)> &set)
{
    const GpuType *custom = customType();
    if (m_loading || !custom)
        return;
    const std::optional<double> value
        = parseNumber(static_cast<QLineEdit *>(row->editor())->text());
    if (!value) {
        row->showError(tr("Enter a number, e.g. 25 or 0.7."));
        return;
    }
    std::vector<GpuType> types = m_model->cluster().gpuTypes;
    for (GpuType &t : types)
        if (t.name == custom->name)
            set(t, *value);
    if (row->report(m_model->setGpuTypes(types)))
        refresh();
}

void MachineEditor::chooseGpuType(int index)
{
    const QVariant choice = m_gpu->itemData(index);
    if (choice.userType() == QMetaType::Int && choice.toInt() == kNewTypeData) {
        createCustomType();
        return;
    }
    const std::string name = choice.toString().toStdString();
    commit(static_cast<FieldRow *>(m_gpu->parentWidget()), [&](Machine &m) {
        // A box's link follows its GPU type unless the person set it by hand.
        const auto typical = [this](const std::string &gpu) -> std::optional<IntraLink> {
            for (const GpuType &t : m_model->cluster().gpuTypes)
                if (t.name == gpu)
                    return t.typicalIntra;
            if (const GpuType *t = builtinGpuCatalog().find(gpu))
                return t->typicalIntra;
            return std::nullopt;
        };
        const std::optional<IntraLink> before = typical(m.gpu);
        const std::optional<IntraLink> after = typical(name);
        if (before && after && m.intra == *before)
            m.intra = *after;
        m.gpu = name;
        return okStatus();
    });
}

// A new cluster-local type, starting from the current GPU's specs.
void MachineEditor::createCustomType()
{
    const Machine *m = m_model->machine(m_id);
    if (!m)
        return;
    const std::vector<GpuType> &existing = m_model->cluster().gpuTypes;
    const auto taken = [&](const std::string &name) {
        return builtinGpuCatalog().find(name)
               || std::any_of(existing.begin(), existing.end(),
                              [&](const GpuType &t) { return t.name == name; });
    };
    std::string suggestion = "custom-gpu";
    for (int i = 2; taken(suggestion); ++i)
        suggestion = "custom-gpu-" + std::to_string(i);
    bool ok = false;
    const QString name
        = QInputDialog::getText(this, tr("New GPU Type"), tr("Name of the GPU type:"),
                                QLineEdit::Normal, QString::fromStdString(suggestion), &ok)
              .trimmed();
    FieldRow *row = static_cast<FieldRow *>(m_gpu->parentWidget());
    if (!ok || name.isEmpty()) {
        refresh();
        return;
    }
    if (taken(name.toStdString())) {
        row->showError(tr("\"%1\" is already a GPU type; choose another name.").arg(name));
        return;
    }
    GpuType type;
    if (const GpuType *t = builtinGpuCatalog().find(m->gpu))
        type = *t;
    else if (const GpuType *c = customType())
        type = *c;
    type.name = name.toStdString();
    type.source = "custom";
    std::vector<GpuType> types = existing;
    types.push_back(type);
    Machine value = *m;
    value.gpu = type.name;

    QUndoStack *stack = m_model->undoStack();
    stack->beginMacro(tr("New GPU type %1").arg(name));
    Status status = m_model->setGpuTypes(types);
    if (status)
        status = m_model->updateMachine(m_id, value);
    stack->endMacro();
    if (!status)
        stack->undo();
    row->report(status);
    refresh();
}

} // namespace hetplan::gui
