#pragma once

#include "core/model/model_spec.h"
#include "core/model/topology.h"
#include "core/model/workload.h"

namespace hetplan {

// Everything a cost model or planner needs to know about the situation being planned.
struct Problem
{
    Topology topology;
    ModelSpec model;
    Workload workload;
};

} // namespace hetplan
