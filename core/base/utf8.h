#pragma once

#include <string>
#include <string_view>

namespace hetplan {

// `bytes` as valid UTF-8: each byte that does not start or continue a well-formed sequence
// (overlong forms, surrogates and code points past U+10FFFF included) becomes U+FFFD, so text
// a remote process printed can be shown as it is.
std::string validUtf8(std::string_view bytes);

} // namespace hetplan
