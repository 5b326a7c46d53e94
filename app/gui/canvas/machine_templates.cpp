#include "canvas/machine_templates.h"

#include "canvas/canvas_style.h"
#include "core/io/catalog_json.h"

namespace hetplan::gui {

namespace {

struct Box
{
    const char *gpu;       // catalog name
    const char *shortName; // as people say it
    const char *stem;      // machine name stem on the canvas
    int count;
};

// Boxes people commonly rent or own; GPU specs and the intra link come from the catalog.
constexpr Box kBoxes[] = {
    {"A100-80G", "A100-80G", "a100", 8},
    {"H100-80G", "H100", "h100", 8},
    {"H200-141G", "H200", "h200", 8},
    {"A800-80G", "A800-80G", "a800", 8},
    {"V100-32G", "V100-32G", "v100", 8},
    {"L40S-48G", "L40S", "l40s", 8},
    {"A40-48G", "A40", "a40", 4},
    {"RTXA6000-48G", "RTX A6000", "a6000", 8},
    {"RTX4090-24G", "RTX 4090", "rtx4090", 8},
    {"RTX4090-24G", "RTX 4090", "rtx4090", 4},
    {"RTX3090-24G", "RTX 3090", "rtx3090", 8},
    {"RTX3090-24G", "RTX 3090", "rtx3090", 2},
};

Cluster oneMachine(Machine machine)
{
    Cluster c;
    c.name = "template";
    c.machines.push_back(std::move(machine));
    return c;
}

} // namespace

GpuType MachineTemplates::customGpuType()
{
    GpuType t;
    t.name = "custom-gpu";
    t.tflops = 100;
    t.memoryGiB = 24;
    t.memoryBandwidthGBps = 900;
    t.typicalIntra = IntraLink{LinkKind::Pcie, 16, 10};
    t.source = "custom";
    return t;
}

std::vector<NodeTemplate> MachineTemplates::all()
{
    std::vector<NodeTemplate> templates;
    const GpuCatalog &catalog = builtinGpuCatalog();
    for (const Box &box : kBoxes) {
        const GpuType *type = catalog.find(box.gpu);
        if (!type)
            continue;
        Machine m;
        m.name = box.stem;
        m.gpu = type->name;
        m.count = box.count;
        m.intra = type->typicalIntra;
        const bool nvlink = m.intra.kind == LinkKind::NvLink;
        NodeTemplate t;
        //: Palette entry: %1 GPU count, %2 GPU model, %3 link kind, e.g. "8× H100 NVLink".
        t.title
            = tr("%1× %2 %3")
                  .arg(box.count)
                  .arg(QString::fromLatin1(box.shortName), CanvasStyle::linkKindName(m.intra.kind));
        t.toolTip = tr("%1: %2 TFLOPS, %3 GiB each; %4 %5 between GPUs")
                        .arg(QString::fromStdString(type->name))
                        .arg(type->tflops)
                        .arg(type->memoryGiB)
                        .arg(CanvasStyle::linkKindName(m.intra.kind),
                             CanvasStyle::bandwidthText(m.intra.bandwidthGBps));
        t.iconPath = nvlink ? QStringLiteral(":/icons/canvas/machine-nvlink.svg")
                            : QStringLiteral(":/icons/canvas/machine-pcie.svg");
        t.fragment = oneMachine(std::move(m));
        templates.push_back(std::move(t));
    }

    const GpuType custom = customGpuType();
    Machine m;
    m.name = "custom";
    m.gpu = custom.name;
    m.count = 4;
    m.intra = custom.typicalIntra;
    NodeTemplate customMachine;
    customMachine.title = tr("Custom machine");
    customMachine.toolTip = tr("A machine of a GPU type you describe: set its TFLOPS, memory "
                               "and bandwidth in the inspector");
    customMachine.iconPath = QStringLiteral(":/icons/canvas/machine-custom.svg");
    customMachine.fragment = oneMachine(std::move(m));
    customMachine.fragment.gpuTypes.push_back(custom);
    templates.push_back(std::move(customMachine));

    NodeTemplate networkSwitch;
    networkSwitch.title = tr("Switch");
    networkSwitch.toolTip = tr("A network switch: link machines to it to share one fabric");
    networkSwitch.iconPath = QStringLiteral(":/icons/canvas/switch.svg");
    networkSwitch.fragment.name = "template";
    networkSwitch.fragment.switches.push_back(Switch{"switch", {}});
    templates.push_back(std::move(networkSwitch));
    return templates;
}

Link MachineTemplates::defaultLink(const Machine *a, const Machine *b)
{
    // A switch (nullptr) adopts the other end's NIC; two different NICs meet over Ethernet.
    const NicKind nicA = a ? a->nic : (b ? b->nic : NicKind::Ethernet);
    const NicKind nicB = b ? b->nic : nicA;
    Link link;
    if (nicA != nicB || nicA == NicKind::Ethernet) {
        link.kind = LinkKind::Ethernet;
        link.bandwidthGBps = 1.25; // 10 GbE
        link.latencyUs = 50;
    } else if (nicA == NicKind::InfiniBand) {
        link.kind = LinkKind::InfiniBand;
        link.bandwidthGBps = 25; // HDR, 200 Gb/s
        link.latencyUs = 5;
    } else {
        link.kind = LinkKind::Roce;
        link.bandwidthGBps = 25; // 200 Gb/s
        link.latencyUs = 10;
    }
    if (a)
        link.a = a->name;
    if (b)
        link.b = b->name;
    return link;
}

} // namespace hetplan::gui
