#pragma once

#include "core/base/result.h"
#include "core/model/cluster.h"

#include <QPointF>

class QMimeData;

namespace hetplan::gui {

// Nodes travel between canvases, the clipboard and the palette as a cluster file fragment
// (hetplan.cluster/1, written and read by the core), so that anything pasted or dropped is
// checked by the same reader as a file.
inline constexpr char kNodesMimeType[] = "application/x-hetplan-nodes";

QMimeData *mimeDataFor(const Cluster &fragment);
bool hasFragment(const QMimeData *mime);
Result<Cluster> fragmentFromMime(const QMimeData *mime);

// Centre of the bounding box of the fragment's node positions.
QPointF fragmentCenter(const Cluster &fragment);

} // namespace hetplan::gui
