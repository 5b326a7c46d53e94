#include "canvas/canvas_clipboard.h"

#include "core/io/formats.h"

#include <QMimeData>

#include <algorithm>
#include <limits>

namespace hetplan::gui {

QMimeData *mimeDataFor(const Cluster &fragment)
{
    // A fragment is a cluster file of its own (switches alone are a valid one).
    const QByteArray json = QByteArray::fromStdString(writeCluster(fragment));
    auto *mime = new QMimeData;
    mime->setData(QString::fromLatin1(kNodesMimeType), json);
    // Plain text too, so that a copy can be pasted into a cluster file by hand.
    mime->setText(QString::fromUtf8(json));
    return mime;
}

bool hasFragment(const QMimeData *mime)
{
    return mime && mime->hasFormat(QString::fromLatin1(kNodesMimeType));
}

Result<Cluster> fragmentFromMime(const QMimeData *mime)
{
    if (!hasFragment(mime))
        return badInput("the clipboard holds no machines or switches");
    const QByteArray data = mime->data(QString::fromLatin1(kNodesMimeType));
    return parseCluster(std::string_view(data.constData(), static_cast<std::size_t>(data.size())),
                        "clipboard");
}

QPointF fragmentCenter(const Cluster &fragment)
{
    double left = std::numeric_limits<double>::max();
    double top = left;
    double right = std::numeric_limits<double>::lowest();
    double bottom = right;
    const auto extend = [&](const CanvasPosition &p) {
        left = std::min(left, p.x);
        right = std::max(right, p.x);
        top = std::min(top, p.y);
        bottom = std::max(bottom, p.y);
    };
    for (const Machine &m : fragment.machines)
        extend(m.position);
    for (const Switch &s : fragment.switches)
        extend(s.position);
    if (left > right)
        return {};
    return {(left + right) / 2, (top + bottom) / 2};
}

} // namespace hetplan::gui
