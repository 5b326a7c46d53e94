#pragma once

#include "core/model/cluster.h"

#include <QCoreApplication>
#include <QString>

#include <string>

class QWidget;

namespace hetplan::gui {

// Inspector fields whose value was measured (Cluster::origin, docs/import.md) say so: the
// editor's tooltip names the file and method, and a line edit shows a marker.
class MeasuredMark
{
    Q_DECLARE_TR_FUNCTIONS(hetplan::gui::MeasuredMark)

public:
    // "Measured: <source> — <how>" for `field` ("/machines/A/intra/bandwidth_GBps"), or
    // empty when the cluster's origin does not list it.
    static QString note(const Cluster &cluster, const std::string &field);
    // The note of the first of `fields` that has one (a link's path names its ends in either
    // order).
    static QString note(const Cluster &cluster, std::initializer_list<std::string> fields);
    // Marks `editor` with `note`, or removes the mark when `note` is empty.
    static void apply(QWidget *editor, const QString &note);
};

} // namespace hetplan::gui
