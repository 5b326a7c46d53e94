#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hetplan {

// `bytes` as valid UTF-8: each byte that does not start or continue a well-formed sequence
// (overlong forms, surrogates and code points past U+10FFFF included) becomes U+FFFD, so text
// a remote process printed can be shown as it is.
std::string validUtf8(std::string_view bytes);

// `bytes` as validUtf8 makes them, with every control character but tab and newline (C0, DEL
// and C1, U+0080..U+009F) replaced by U+FFFD as well: text from a remote host or a file, fit
// for a terminal, where an escape sequence could move the cursor, rewrite the window title or
// hide what came before.
std::string terminalText(std::string_view bytes);

// How many bytes of `bytes` end before a multi-byte sequence that is cut off at the end (one
// whose lead byte says more follow), so that a stream can hold those back for the next write.
std::size_t completeUtf8Length(std::string_view bytes);

} // namespace hetplan
