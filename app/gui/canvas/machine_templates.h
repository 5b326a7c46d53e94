#pragma once

#include "core/model/cluster.h"

#include <QCoreApplication>
#include <QString>

#include <vector>

namespace hetplan::gui {

// What the palette offers: common boxes built from the GPU catalog (with the catalog's
// typical intra-machine link), a custom machine, and a switch. Each is a one-node cluster
// fragment at position (0, 0), dropped like anything pasted.
struct NodeTemplate
{
    QString title; // "8× A100-80G NVLink"
    QString toolTip;
    QString iconPath; // a resource path
    Cluster fragment;
};

class MachineTemplates
{
    Q_DECLARE_TR_FUNCTIONS(MachineTemplates)

public:
    static std::vector<NodeTemplate> all();

    // The custom GPU type the custom-machine template brings; the person edits its specs in
    // the inspector.
    static GpuType customGpuType();

    // A new link's parameters when a person draws one: the fabric both ends share (a switch
    // takes the other end's), at a common speed for that fabric.
    static Link defaultLink(const Machine *a, const Machine *b);
};

} // namespace hetplan::gui
