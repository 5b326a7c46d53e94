#pragma once

// The cluster file's `calibration` object (docs/formats.md, "calibration").

#include "core/io/json_util.h"
#include "core/model/calibration_record.h"

namespace hetplan::jsonio {

CalibrationRecord readCalibrationRecord(const Value &value);
OrderedJson calibrationRecordJson(const CalibrationRecord &record);

} // namespace hetplan::jsonio
