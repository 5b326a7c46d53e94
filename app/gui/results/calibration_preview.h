#pragma once

#include "core/calibrate/calibration.h"

#include <QDialog>

class QLabel;
class QPushButton;
class QTableWidget;

namespace hetplan::gui {

// What a calibration would change, before it changes anything (docs/calibration.md, "In the
// app"): each figure before → after ± its standard uncertainty, the GPU types or links it
// touches, why a figure is kept (not identifiable, at a bound, did not run), and the shown
// plan's predicted iteration time before → after. Apply accepts, Cancel rejects.
class CalibrationPreview : public QDialog
{
    Q_OBJECT

public:
    enum Column { Figure, Before, After, Uncertainty, Touches, Status, ColumnCount };

    // `cluster`: the cluster as it is, for the machines a GPU type's figure touches;
    // `iterationBeforeS`, `iterationAfterS`: the shown plan on it and on the calibrated one;
    // `warning`: shown above the table when not empty (a measurement without a plan digest).
    CalibrationPreview(const Calibration &calibration, const Cluster &cluster,
                       double iterationBeforeS, double iterationAfterS, const QString &warning,
                       QWidget *parent);

    QTableWidget *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }
    QPushButton *applyButton() const { return m_apply; }
    QPushButton *cancelButton() const { return m_cancel; }

private:
    QLabel *m_summary;
    QTableWidget *m_table;
    QPushButton *m_apply;
    QPushButton *m_cancel;
};

} // namespace hetplan::gui
