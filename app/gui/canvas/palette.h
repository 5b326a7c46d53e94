#pragma once

#include "canvas/machine_templates.h"

#include <QListWidget>

#include <vector>

namespace hetplan::gui {

// The list of machine templates and the switch that a person drags onto the canvas. A drag
// carries the template as a cluster fragment (canvas_clipboard.h), which the canvas adds
// where it is dropped.
class Palette : public QListWidget
{
    Q_OBJECT

public:
    explicit Palette(QWidget *parent);

    const std::vector<NodeTemplate> &templates() const { return m_templates; }
    // What dragging row `row` carries; the caller owns it.
    QMimeData *mimeDataForRow(int row) const;

Q_SIGNALS:
    // Double-click or Enter on a template: the window may add it at the canvas centre.
    void templateActivated(const hetplan::Cluster &fragment);

protected:
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QList<QListWidgetItem *> &items) const override;

private:
    std::vector<NodeTemplate> m_templates;
};

} // namespace hetplan::gui
