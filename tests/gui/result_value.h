#pragma once

// For the GUI tests that build their problems from the bundled files: the value of a Result,
// or the test stops with its error.

#include "core/base/result.h"

#include <QtGlobal>

#include <utility>

namespace hetplan::gui::test {

template<typename T>
T valueOf(Result<T> result)
{
    if (!result)
        qFatal("%s", result.error().message.c_str());
    return std::move(result).value();
}

} // namespace hetplan::gui::test
