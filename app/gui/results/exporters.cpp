#include "results/exporters.h"

#include "core/cost/phase_key.h"
#include "core/io/files.h"
#include "core/io/formats.h"
#include "results/plan_view.h"
#include "results/qcustomplot_include.h"

#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>

#include <functional>

namespace hetplan::gui {

namespace {

std::string toStd(const QString &text)
{
    return text.toStdString();
}

Error writeError(const QString &path, const QString &reason)
{
    return Error{ErrorKind::Internal, toStd(path) + ": cannot write: " + toStd(reason)};
}

// Paints `size` worth of picture into `path` in its format; `paint` draws on a device of
// that size (in device-independent pixels) with a painter of its own.
Status savePicture(const QString &path, QSize size,
                   const std::function<void(QPaintDevice *device, bool vector)> &paint)
{
    auto format = imageFormatOf(path);
    if (!format)
        return format.error();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return writeError(path, file.errorString());
    switch (*format) {
    case ImageFormat::Png: {
        QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
        image.setDevicePixelRatio(2);
        image.fill(Qt::white);
        paint(&image, false);
        if (!image.save(&file, "PNG"))
            return writeError(path, file.errorString());
        break;
    }
    case ImageFormat::Svg: {
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(QFileInfo(path).completeBaseName());
        paint(&svg, true);
        break;
    }
    case ImageFormat::Pdf: {
        QPdfWriter pdf(&file);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(72);
        paint(&pdf, true);
        break;
    }
    }
    if (!file.commit())
        return writeError(path, file.errorString());
    return okStatus();
}

} // namespace

Result<ImageFormat> imageFormatOf(const QString &path)
{
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png"))
        return ImageFormat::Png;
    if (suffix == QLatin1String("svg"))
        return ImageFormat::Svg;
    if (suffix == QLatin1String("pdf"))
        return ImageFormat::Pdf;
    return badInput(toStd(path) + ": unknown image type '" + toStd(suffix)
                    + "'; use .png, .svg or .pdf");
}

Status exportPlanFile(const QString &path, const ShownPlan &shown)
{
    Plan plan = shown.plan;
    plan.estimate = shown.evaluation;
    return writeFileAtomic(toStd(path), writePlan(plan, shown.problem->topology));
}

QString breakdownCsv(const ShownPlan &shown)
{
    const Evaluation &e = shown.evaluation;
    const Mode mode = shown.plan.workload.mode;
    // Column names stay English: a CSV is read by scripts, not only by people.
    QStringList header{QStringLiteral("part"), QStringLiteral("overall_s")};
    for (size_t p = 0; p < e.pipelines.size(); ++p)
        header << (mode == Mode::Infer ? QStringLiteral("replica_%1_s")
                                       : QStringLiteral("pipeline_%1_s"))
                      .arg(p);
    QString csv = header.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (size_t part = 0; part < std::size(kBreakdownPhases); ++part) {
        QStringList row{QString::fromStdString(std::string(phaseName(kBreakdownPhases[part])))};
        row << QString::number(ResultsText::breakdownValues(e.breakdown)[part], 'g', 17);
        for (const PipelineTiming &p : e.pipelines)
            row << QString::number(ResultsText::breakdownValues(p.breakdown)[part], 'g', 17);
        csv += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return csv;
}

Status exportBreakdownCsv(const QString &path, const ShownPlan &shown)
{
    return writeFileAtomic(toStd(path), toStd(breakdownCsv(shown)));
}

Status exportChart(const QString &path, QCustomPlot *plot)
{
    const QSize size = plot->size().isEmpty() ? QSize(800, 500) : plot->size();
    return savePicture(path, size, [plot, size](QPaintDevice *device, bool vector) {
        QCPPainter painter(device);
        if (vector) {
            // Text and lines as vector paths, as QCustomPlot's own savePdf does.
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
        }
        plot->toPainter(&painter, size.width(), size.height());
    });
}

Status exportPlanView(const QString &path, const PlanView *view)
{
    return savePicture(path, view->sizeHint(), [view](QPaintDevice *device, bool) {
        QPainter painter(device);
        view->paintPlan(painter);
    });
}

} // namespace hetplan::gui
