#pragma once

#include <QString>
#include <QStringList>

class QCustomPlot;
class QCPAxis;

namespace hetplan::gui {

// What every results chart shares: a title row, a legend that does not cover the data,
// readable tick labels, and category axes for bar charts.
void setUpChart(QCustomPlot *plot, const QString &title);
// For a chart that scrolls down: its legend between the title and the data.
void moveLegendAboveChart(QCustomPlot *plot);
void setChartTitle(QCustomPlot *plot, const QString &title);
// Marks the title "Out of date: …" (the chart shows a plan made for other inputs); the mark
// stays across setChartTitle until it is taken off.
void setChartOutOfDate(QCustomPlot *plot, bool outOfDate);
QString chartTitle(QCustomPlot *plot);
// Labels ticks 0..n-1 on `axis` with `labels`; rotates them when they would collide.
void setCategoryAxis(QCPAxis *axis, const QStringList &labels);
// Shows a line of text in the middle of an empty chart (no plan yet, no data), under the
// chart's plain title.
void setChartPlaceholder(QCustomPlot *plot, const QString &text);

} // namespace hetplan::gui
