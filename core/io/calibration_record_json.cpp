#include "core/io/calibration_record_json.h"

namespace hetplan::jsonio {
namespace {

// Figures per calibration: one per fitted figure; far below this.
constexpr std::size_t kMaxEntries = 1u << 12;

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
    return j;
}

} // namespace hetplan::jsonio
