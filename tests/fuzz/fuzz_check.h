#pragma once

// What every fuzz target asserts beyond "no crash": whatever a reader accepts, the writer
// writes back in a form the reader accepts again, with the same content.
#include <cstdio>
#include <cstdlib>

#define HETPLAN_FUZZ_CHECK(condition)                                                              \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            std::fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #condition, __FILE__,          \
                         __LINE__);                                                                \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)
