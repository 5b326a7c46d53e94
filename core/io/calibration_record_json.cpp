#include "core/io/calibration_record_json.h"

#include "core/cost/phase_key.h"

namespace hetplan::jsonio {
namespace {

// Entries per list: one per figure or per phase kind and link class; far below this.
constexpr std::size_t kMaxEntries = 1u << 12;

// A relative error: -1 (a prediction of twice the measured) up to any overestimate.
Range relativeError()
{
    return {-1, kMaxFigure, false};
}

} // namespace

CalibrationRecord readCalibrationRecord(const Value &value)
{
    CalibrationRecord record;
    if (!value.present())
        return record;
    Object o = value.object();
    const Array figures = o.optional("figures").array(kMaxEntries);
    for (std::size_t i = 0; i < figures.size(); ++i) {
        Object f = figures.at(i).object();
        FigureUncertainty u;
        u.field = f.required("field").string(kMaxTextChars);
        u.value = f.required("value").number(Range::nonNegative());
        u.standardUncertainty = f.required("standard_uncertainty").number(Range::nonNegative());
        f.finish();
        record.figures.push_back(std::move(u));
    }
    const Array residuals = o.optional("residuals").array(kMaxEntries);
    for (std::size_t i = 0; i < residuals.size(); ++i) {
        Object r = residuals.at(i).object();
        PhaseResidual p;
        p.phase = std::string(
            phaseName(r.required("phase").oneOf<Phase>(kPhaseNames, Phase::Compute, "phase")));
        if (const Value link = r.optional("link"); link.present())
            p.link = link.oneOf<LinkKind>(kLinkKindNames, LinkKind::Ethernet, "link kind");
        p.rows = r.required("rows").integer({1});
        p.meanRelativeError = r.required("mean_relative_error").number(relativeError());
        p.rmsRelativeError = r.required("rms_relative_error").number(Range::nonNegative());
        r.finish();
        record.residuals.push_back(std::move(p));
    }
    o.finish();
    return record;
}

OrderedJson calibrationRecordJson(const CalibrationRecord &record)
{
    OrderedJson j;
    OrderedJson &figures = j["figures"] = OrderedJson::array();
    for (const FigureUncertainty &u : record.figures)
        figures.push_back({{"field", u.field},
                           {"value", u.value},
                           {"standard_uncertainty", u.standardUncertainty}});
    OrderedJson &residuals = j["residuals"] = OrderedJson::array();
    for (const PhaseResidual &p : record.residuals) {
        OrderedJson o;
        o["phase"] = p.phase;
        if (p.link)
            o["link"] = nameOf<LinkKind>(kLinkKindNames, *p.link);
        o["rows"] = p.rows;
        o["mean_relative_error"] = p.meanRelativeError;
        o["rms_relative_error"] = p.rmsRelativeError;
        residuals.push_back(std::move(o));
    }
    return j;
}

} // namespace hetplan::jsonio
