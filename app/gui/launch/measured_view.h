#pragma once

#include "core/cost/measured_comparison.h"
#include "core/cost/measurement.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableWidget;

namespace hetplan::gui {

// A launched run's measured times beside the plan's predicted ones, per phase and per stage
// (core/cost/measured_comparison.h: the figures `hetplan-cli evaluate --measured` prints).
class MeasuredView : public QWidget
{
    Q_OBJECT

public:
    enum Column { What, Predicted, Measured, Error, ColumnCount };

    explicit MeasuredView(QWidget *parent = nullptr);

    void showRun(const Measurement &measured, const std::vector<Comparison> &rows);
    void clear();

    QTableWidget *table() const { return m_table; }
    QLabel *summary() const { return m_summary; }

private:
    QLabel *m_summary;
    QTableWidget *m_table;
};

} // namespace hetplan::gui
