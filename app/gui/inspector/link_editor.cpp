#include "inspector/link_editor.h"

#include "canvas/canvas_style.h"
#include "inspector/inspector_field.h"
#include "inspector/measured_mark.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>

namespace hetplan::gui {

namespace {

constexpr LinkKind kNetworkKinds[]
    = {LinkKind::Ethernet, LinkKind::InfiniBand, LinkKind::Roce, LinkKind::NvLink, LinkKind::Pcie};

void loadText(QLineEdit *edit, const QString &text)
{
    auto *row = static_cast<FieldRow *>(edit->parentWidget());
    if (!row->hasError() && edit->text() != text)
        edit->setText(text);
}

} // namespace

LinkEditor::LinkEditor(ClusterModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_ends(new QLabel(this))
    , m_kind(new QComboBox(this))
    , m_bandwidthGBps(makeLineEdit(QStringLiteral("linkBandwidth"), this))
    , m_latencyUs(makeLineEdit(QStringLiteral("linkLatency"), this))
{
    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    m_ends->setObjectName(QStringLiteral("linkEnds"));
    m_kind->setObjectName(QStringLiteral("linkKind"));
    for (const LinkKind kind : kNetworkKinds)
        m_kind->addItem(CanvasStyle::linkKindName(kind), static_cast<int>(kind));

    form->addRow(tr("Joins"), m_ends);
    const auto addRow = [&](const QString &label, QWidget *editor) {
        auto *row = new FieldRow(editor, this);
        form->addRow(label, row);
        m_rows.push_back(row);
        return row;
    };
    FieldRow *kindRow = addRow(tr("Kind"), m_kind);
    FieldRow *bandwidthRow = addRow(tr("Bandwidth (GB/s)"), m_bandwidthGBps);
    FieldRow *latencyRow = addRow(tr("Latency (µs)"), m_latencyUs);

    connect(m_kind, &QComboBox::activated, this, [this, kindRow] {
        commit(kindRow, [this](Link &l) {
            l.kind = static_cast<LinkKind>(m_kind->currentData().toInt());
            return okStatus();
        });
    });
    connect(m_bandwidthGBps, &QLineEdit::editingFinished, this, [this, bandwidthRow] {
        commitNumber(bandwidthRow, [](Link &l, double v) { l.bandwidthGBps = v; });
    });
    connect(m_latencyUs, &QLineEdit::editingFinished, this, [this, latencyRow] {
        commitNumber(latencyRow, [](Link &l, double v) { l.latencyUs = v; });
    });
}

void LinkEditor::setLink(ItemId id)
{
    m_id = id;
    for (FieldRow *row : m_rows)
        row->clearError();
    refresh();
}

void LinkEditor::refresh()
{
    const Link *l = m_model->link(m_id);
    if (!l)
        return;
    m_loading = true;
    m_ends->setText(tr("%1 ↔ %2").arg(QString::fromStdString(l->a), QString::fromStdString(l->b)));
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(l->kind)));
    loadText(m_bandwidthGBps, formatNumber(l->bandwidthGBps));
    loadText(m_latencyUs, formatNumber(l->latencyUs));
    const Cluster &cluster = m_model->cluster();
    const std::string ab = "/links/" + l->a + "/" + l->b + "/";
    const std::string ba = "/links/" + l->b + "/" + l->a + "/";
    MeasuredMark::apply(m_bandwidthGBps, MeasuredMark::note(cluster, {ab + "bandwidth_GBps",
                                                                      ba + "bandwidth_GBps"}));
    MeasuredMark::apply(m_latencyUs,
                        MeasuredMark::note(cluster, {ab + "latency_us", ba + "latency_us"}));
    m_loading = false;
}

void LinkEditor::commit(FieldRow *row, const std::function<Status(Link &)> &edit)
{
    const Link *current = m_model->link(m_id);
    if (m_loading || !current)
        return;
    Link value = *current;
    if (Status parsed = edit(value); !parsed) {
        row->report(parsed);
        return;
    }
    if (row->report(m_model->updateLink(m_id, value)))
        refresh();
}

void LinkEditor::commitNumber(FieldRow *row, const std::function<void(Link &, double)> &set)
{
    auto *edit = static_cast<QLineEdit *>(row->editor());
    commit(row, [&](Link &l) -> Status {
        const std::optional<double> value = parseNumber(edit->text());
        if (!value)
            return badInput(tr("Enter a number, e.g. 25 or 0.7.").toStdString());
        set(l, *value);
        return okStatus();
    });
}

SwitchEditor::SwitchEditor(ClusterModel *model, QWidget *parent)
    : QWidget(parent)
    , m_model(model)
    , m_name(makeLineEdit(QStringLiteral("switchName"), this))
    , m_nameRow(new FieldRow(m_name, this))
    , m_links(new QLabel(this))
{
    auto *form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Name"), m_nameRow);
    form->addRow(tr("Links"), m_links);
    connect(m_name, &QLineEdit::editingFinished, this, [this] {
        const Switch *current = m_model->networkSwitch(m_id);
        if (!current)
            return;
        Switch value = *current;
        value.name = m_name->text().trimmed().toStdString();
        if (m_nameRow->report(m_model->updateSwitch(m_id, value)))
            refresh();
    });
}

void SwitchEditor::setSwitch(ItemId id)
{
    m_id = id;
    m_nameRow->clearError();
    refresh();
}

void SwitchEditor::refresh()
{
    const Switch *s = m_model->networkSwitch(m_id);
    if (!s)
        return;
    loadText(m_name, QString::fromStdString(s->name));
    m_links->setText(QString::number(m_model->linksOf(m_id).size()));
}

} // namespace hetplan::gui
