#include "app/cli/calibrate_report.h"

#include "app/cli/report.h"
#include "core/io/loaders.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace hetplan::cli {
namespace {

std::string percent(double predicted, double measured)
{
    if (!(predicted > 0) || !std::isfinite(predicted))
        return "-";
    std::ostringstream text;
    text << std::showpos << std::fixed << std::setprecision(0)
         << (measured - predicted) / predicted * 100 << " %";
    return text.str();
}

} // namespace

std::string fourDigits(double value)
{
    std::ostringstream text;
    text << std::setprecision(4) << value;
    return text.str();
}

void printFittedFigure(std::ostream &out, const FittedFigure &f, const char *observed)
{
    const auto shown = [&](double value) {
        return f.meansNone(value) ? std::string("none") : fourDigits(value);
    };
    out << "  " << std::left << std::setw(44) << f.field << std::right << std::setw(10)
        << shown(f.before) << " -> " << std::left << std::setw(10) << shown(f.after);
    if (std::isfinite(f.standardError))
        out << " ± " << fourDigits(f.standardError);
    out << "  (" << f.observations << ' ' << observed << ")";
    if (!f.runs.empty()) {
        out << "\n      identified by";
        for (const std::string &run : f.runs)
            out << ' ' << run;
    }
    if (!f.note.empty())
        out << "\n      " << f.note;
    out << '\n';
}

Result<ModelSpec> modelOfRun(const std::string &given, const std::string &planPath,
                             const std::string &planModel, const std::string &measuredModel)
{
    const std::string &name = !given.empty()       ? given
                              : !planModel.empty() ? planModel
                                                   : measuredModel;
    auto loaded = loadModel(name);
    if (!loaded)
        return badInput((given.empty() ? planPath + ": model: " : "--model: ")
                        + loaded.error().message);
    return loaded;
}

void printCalibration(std::ostream &out, const Calibration &c)
{
    out << "Fitted figures (least squares over ln(predicted / measured) of the per-stage phase "
           "times):\n";
    for (const FittedFigure &f : c.figures)
        printFittedFigure(out, f, "phase times");
    for (const FittedFigure &f : c.figures)
        if (f.verdict == FigureVerdict::AtBound)
            out << "WARNING: " << f.field << " is not applied: its fit ends at the bound of its "
                << "range (" << fourDigits(f.fittedValue)
                << "); --accept-bound applies it anyway\n";
    out << "Residual: rms of ln(predicted / measured) " << fourDigits(c.rmsLogErrorBefore) << " -> "
        << fourDigits(c.rmsLogErrorAfter) << " after " << c.iterations << " iterations\n\n";
    out << std::left << std::setw(34) << "phase (measured)" << std::right << std::setw(12)
        << "measured" << std::setw(12) << "before" << std::setw(9) << "error" << std::setw(12)
        << "after" << std::setw(9) << "error" << '\n';
    for (const PhaseFit &p : c.phases) {
        std::string what = p.fitted ? "" : "(";
        what += p.run;
        what += ' ';
        what += labelOf(p.key);
        what += p.fitted ? "" : ")";
        out << std::left << std::setw(34) << what << std::right << std::setw(12)
            << formatSeconds(p.measured) << std::setw(12) << formatSeconds(p.before) << std::setw(9)
            << percent(p.before, p.measured) << std::setw(12) << formatSeconds(p.after)
            << std::setw(9) << percent(p.after, p.measured) << '\n';
    }
    out << "(rows in parentheses are shown, not fitted: run totals, or times under 10 us)\n";
}

} // namespace hetplan::cli
