#include "runtime/serve/serve_stage.h"

#include <string>

namespace hetplan::runtime {

namespace {

Error callerError(std::string message)
{
    return {ErrorKind::Internal, std::move(message)};
}

} // namespace

Status checkServeCache(int slots, int capacityTokens)
{
    if (slots >= 1 && capacityTokens >= 1)
        return okStatus();
    return badInput("a serving shard needs at least one batch slot of at least one token; got "
                    + std::to_string(slots) + " slots of " + std::to_string(capacityTokens)
                    + " tokens");
}

Status checkServeStep(std::span<const TokenRow> rows, std::size_t inputs,
                      std::size_t expectedInputs, std::span<const int> logitRows, int slots,
                      int capacityTokens, int vocab)
{
    if (inputs != expectedInputs)
        return callerError("a serving step of " + std::to_string(rows.size()) + " tokens got "
                           + std::to_string(inputs) + " input values; expected "
                           + std::to_string(expectedInputs));
    for (std::size_t r = 0; r < rows.size(); ++r) {
        const TokenRow &row = rows[r];
        if (row.slot < 0 || row.slot >= slots || row.position < 0 || row.position >= capacityTokens)
            return callerError("token row " + std::to_string(r) + " (slot "
                               + std::to_string(row.slot) + ", position "
                               + std::to_string(row.position) + ") is outside the KV cache");
        if (vocab > 0 && (row.token < 0 || row.token >= vocab))
            return callerError("token " + std::to_string(row.token) + " is outside the vocabulary");
    }
    for (const int r : logitRows)
        if (r < 0 || std::size_t(r) >= rows.size())
            return callerError("logit row " + std::to_string(r) + " is not one of the step's "
                               + std::to_string(rows.size()) + " rows");
    return okStatus();
}

} // namespace hetplan::runtime
