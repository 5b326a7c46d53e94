#include "results/calibration_preview.h"

#include "results/results_text.h"

#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace hetplan::gui {
namespace {

QString number(double value)
{
    return QLocale().toString(value, 'g', 4);
}

// "/gpu_types/A800/achieved_fraction" touches the machines of type A800; a transport figure,
// every link of its kind.
QString touches(const FittedFigure &figure, const Cluster &cluster)
{
    const std::string types = "/gpu_types/";
    if (figure.field.starts_with(types)) {
        const std::string type
            = figure.field.substr(types.size(), figure.field.rfind('/') - types.size());
        QStringList machines;
        for (const Machine &m : cluster.machines)
            if (m.gpu == type)
                machines << QString::fromStdString(m.name);
        return CalibrationPreview::tr("GPU type %1 (%2)")
            .arg(QString::fromStdString(type), machines.join(QStringLiteral(", ")));
    }
    const std::string transports = "/transports/";
    const std::string kind
        = figure.field.substr(transports.size(), figure.field.rfind('/') - transports.size());
    return CalibrationPreview::tr("every %1 link").arg(QString::fromStdString(kind));
}

QString statusOf(const FittedFigure &figure)
{
    switch (figure.verdict) {
    case FigureVerdict::Fitted:
        return CalibrationPreview::tr("fitted");
    case FigureVerdict::AcceptedAtBound:
        return CalibrationPreview::tr("AT BOUND, accepted");
    case FigureVerdict::AtBound:
        return CalibrationPreview::tr("REFUSED: fit at the bound (%1); kept")
            .arg(number(figure.fittedValue));
    case FigureVerdict::NotIdentifiable:
        return CalibrationPreview::tr("not identifiable; kept");
    case FigureVerdict::DidNotRun:
        return CalibrationPreview::tr("did not run; kept");
    }
    return {};
}

} // namespace

CalibrationPreview::CalibrationPreview(const Calibration &calibration, const Cluster &cluster,
                                       double iterationBeforeS, double iterationAfterS,
                                       const QString &warning, QWidget *parent)
    : QDialog(parent)
    , m_summary(new QLabel(this))
    , m_table(new QTableWidget(0, ColumnCount, this))
{
    setObjectName(QStringLiteral("calibrationPreview"));
    setWindowTitle(tr("Calibration Preview"));
    int changed = 0;
    for (const FittedFigure &f : calibration.figures)
        changed += f.changed() ? 1 : 0;
    QString text
        = tr("Apply changes %n figure(s) of the cluster; the others are kept as they "
             "are.",
             nullptr, changed)
          + u' '
          + tr("The shown plan's predicted iteration time: %1 → %2.")
                .arg(ResultsText::duration(iterationBeforeS),
                     ResultsText::duration(iterationAfterS))
          + u' '
          + tr("Residual of the phase times (rms of ln(predicted / measured)): %1 → %2.")
                .arg(number(calibration.rmsLogErrorBefore), number(calibration.rmsLogErrorAfter));
    if (!warning.isEmpty())
        text = warning + u'\n' + text;
    m_summary->setObjectName(QStringLiteral("calibrationSummary"));
    m_summary->setWordWrap(true);
    m_summary->setText(text);

    m_table->setObjectName(QStringLiteral("calibrationFigures"));
    m_table->setHorizontalHeaderLabels(
        {tr("Figure"), tr("Before"), tr("After"), tr("±"), tr("Touches"), tr("Status")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setRowCount(int(calibration.figures.size()));
    for (int row = 0; row < int(calibration.figures.size()); ++row) {
        const FittedFigure &f = calibration.figures[size_t(row)];
        const auto shown
            = [&](double value) { return f.meansNone(value) ? tr("none") : number(value); };
        const QString cells[ColumnCount]
            = {QString::fromStdString(f.field),
               shown(f.before),
               shown(f.after),
               std::isfinite(f.standardError) ? number(f.standardError) : QStringLiteral("–"),
               touches(f, cluster),
               statusOf(f)};
        for (int column = 0; column < ColumnCount; ++column) {
            auto *item = new QTableWidgetItem(cells[column]);
            item->setToolTip(QString::fromStdString(f.note));
            if (!f.changed())
                item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
            if (f.verdict == FigureVerdict::AtBound || f.verdict == FigureVerdict::AcceptedAtBound)
                item->setForeground(Qt::red);
            m_table->setItem(row, column, item);
        }
    }

    auto *buttons = new QDialogButtonBox(this);
    m_apply = buttons->addButton(tr("&Apply"), QDialogButtonBox::AcceptRole);
    m_apply->setObjectName(QStringLiteral("applyCalibration"));
    m_cancel = buttons->addButton(QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    // Wide enough for every column where the screen allows: a figure's path names its GPU type.
    m_table->resizeColumnsToContents();
    const int tableWidth = m_table->horizontalHeader()->length() + 2 * m_table->frameWidth()
                           + m_table->verticalScrollBar()->sizeHint().width();
    const QMargins margins = layout->contentsMargins();
    const int screenWidth = screen() != nullptr ? screen()->availableGeometry().width() : 1200;
    resize(std::clamp(tableWidth + margins.left() + margins.right(), 600,
                      std::max(600, screenWidth * 9 / 10)),
           360);
}

} // namespace hetplan::gui
