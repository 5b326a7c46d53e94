#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace hetplan {

// What went wrong, in categories the callers act on (the CLI maps them to exit codes).
enum class ErrorKind {
    BadInput,    // a file or an argument a person gave is wrong; exit 2
    NoPlanFits,  // the input is fine but no plan fits in memory / connectivity; exit 3
    Cancelled,   // a stop was requested before anything usable was found
    Unsupported, // valid input this component does not handle (e.g. too large for the oracle)
    Internal,    // a library failed (METIS, the file system)
};

struct NoFit; // core/base/no_fit.h

// An error a person can act on: the message names the file, the field and what would be valid.
struct Error
{
    ErrorKind kind = ErrorKind::BadInput;
    std::string message;
    // NoPlanFits from a planner: the closest candidate and the GPUs it overflows, as data for
    // the front ends (the message already says it in words); null otherwise.
    std::shared_ptr<const NoFit> noFit = nullptr;
};

inline Error badInput(std::string message)
{
    return {ErrorKind::BadInput, std::move(message)};
}

// A value or an Error; anything a user or a file can cause is returned as one of these.
// Bugs are assertions, not Errors.
template<typename T>
class [[nodiscard]] Result
{
public:
    Result(T value)
        : m_state(std::in_place_index<0>, std::move(value))
    {}
    Result(Error error)
        : m_state(std::in_place_index<1>, std::move(error))
    {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    T &value() &
    {
        assert(ok());
        return std::get<0>(m_state);
    }
    const T &value() const &
    {
        assert(ok());
        return std::get<0>(m_state);
    }
    T &&value() &&
    {
        assert(ok());
        return std::get<0>(std::move(m_state));
    }
    T *operator->() { return &value(); }
    const T *operator->() const { return &value(); }
    T &operator*() & { return value(); }
    const T &operator*() const & { return value(); }

    const Error &error() const
    {
        assert(!ok());
        return std::get<1>(m_state);
    }

private:
    std::variant<T, Error> m_state;
};

struct Ok
{
};
// Success without a value, or an Error.
using Status = Result<Ok>;
inline Status okStatus()
{
    return Ok{};
}

} // namespace hetplan
