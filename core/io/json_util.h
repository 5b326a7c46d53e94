#pragma once

// Strict, path-aware reading of nlohmann::json for the file formats (internal to core/io and
// core/catalog). A reader walks a document with a JSON path ("machines[2].intra.kind"); the
// first problem becomes the Error, later reads are no-ops that return their fallback, so the
// format readers stay declarative: read every field, then ask the context for the result.

#include "core/base/enum_names.h"
#include "core/base/result.h"

#include <cstddef>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace hetplan::jsonio {

using Json = nlohmann::json;                // reading: std::map keys, O(log n) lookups
using OrderedJson = nlohmann::ordered_json; // writing: fields in the order docs/formats.md shows

inline constexpr int kMaxDepth = 64;
inline constexpr std::size_t kMaxNameChars = 128;
inline constexpr std::size_t kMaxTextChars = 4096;
// Keeps absurd figures (1e300 GB/s) out of the cost models, where they would overflow.
inline constexpr double kMaxFigure = 1e7;
// Below this a positive figure (GB/s, TFLOPS, GiB, requests/s) is a typo, not hardware: 1e-300
// GB/s would make every time astronomically large.
inline constexpr double kMinPositiveFigure = 1e-6;

// Parses a whole document: size limit, nesting limit, JSON syntax. Never throws.
// Errors: "<source>: line 3, column 7: syntax error …".
Result<Json> parseDocument(std::string_view text, std::string_view source);

// Allowed numbers, printed as "valid: > 0 and <= 10000000".
struct Range
{
    double min = -kMaxFigure;
    double max = kMaxFigure;
    bool minOpen = false;
    double smallestPositive = 0; // 0: no floor beyond min

    static Range positive(double max = kMaxFigure) { return {0, max, true, kMinPositiveFigure}; }
    static Range nonNegative(double max = kMaxFigure) { return {0, max, false}; }
    bool contains(double x) const
    {
        return (minOpen ? x > min : x >= min) && x <= max
               && (smallestPositive <= 0 || x >= smallestPositive);
    }
    std::string describe() const;
};

// Allowed integers, printed as "valid: 1..1024".
struct IntRange
{
    long long min = 0;
    long long max = std::numeric_limits<int>::max();
    std::string describe() const;
};

// One spelling of an enum value in a file (core/base/enum_names.h).
template<typename E>
using Choice = EnumName<E>;

std::string joinNames(const std::vector<std::string_view> &names);

// The source name and the first error of one read.
class Context
{
public:
    explicit Context(std::string_view source)
        : m_source(source)
    {}

    const std::string &source() const { return m_source; }
    bool failed() const { return m_message.has_value(); }
    // Keeps the first failure only: later ones are usually its consequences.
    void fail(std::string_view path, std::string_view what);
    Error error() const { return badInput(*m_message); }
    template<typename T>
    Result<T> result(T value) const
    {
        if (failed())
            return error();
        return value;
    }

private:
    std::string m_source;
    std::optional<std::string> m_message;
};

class Object;
class Array;

// One value at a path; `json` is null when the field is absent (or after a failure).
// Every accessor returns `fallback` when the value is absent or wrong (recording why).
class Value
{
public:
    Value(Context &context, const Json *json, std::string path)
        : m_context(&context)
        , m_json(json)
        , m_path(std::move(path))
    {}

    bool present() const { return m_json != nullptr && !m_context->failed(); }
    const std::string &path() const { return m_path; }
    Context &context() const { return *m_context; }
    const Json *json() const { return present() ? m_json : nullptr; }
    bool is(Json::value_t type) const { return present() && m_json->type() == type; }
    void fail(std::string_view what) const { m_context->fail(m_path, what); }

    int integer(IntRange range, int fallback = 0) const;
    double number(Range range, double fallback = 0) const;
    std::optional<double> optionalNumber(Range range) const;
    bool boolean(bool fallback = false) const;
    // allowEmpty = false: names; a missing optional string is fallback either way.
    std::string string(std::size_t maxChars = kMaxNameChars, bool allowEmpty = false,
                       std::string fallback = {}) const;
    // "what" names the set in the message: "\"x\" is not a known NIC kind; valid: ethernet, …";
    // alsoValid lists spellings the caller accepted before asking (e.g. "true, false").
    template<typename E>
    E oneOf(std::span<const Choice<E>> choices, E fallback, std::string_view what,
            std::string_view alsoValid = {}) const;

    Object object() const;
    Array array(std::size_t maxItems, std::size_t minItems = 0) const;

    // Short human description of the value, for messages: "string \"abc\"", "an array".
    std::string describe() const;

private:
    bool expect(bool ok, std::string_view expected) const;

    Context *m_context;
    const Json *m_json;
    std::string m_path;
};

// An object being read. required()/optional() mark a field as known; finish() then rejects
// fields nobody asked for (typos would otherwise silently fall back to defaults), except
// "comment", "description" and names starting with '_', which people use for notes.
class Object
{
public:
    Object(Context &context, const Json *json, std::string path)
        : m_context(&context)
        , m_json(json)
        , m_path(std::move(path))
    {}

    bool present() const { return m_json != nullptr && !m_context->failed(); }
    bool has(std::string_view key) const;
    Value required(std::string_view key);
    Value optional(std::string_view key);
    void fail(std::string_view what) const { m_context->fail(m_path, what); }
    void failField(std::string_view key, std::string_view what) const;
    std::string childPath(std::string_view key) const;
    Context &context() const { return *m_context; }
    void finish() const;

private:
    Context *m_context;
    const Json *m_json;
    std::string m_path;
    std::vector<std::string_view> m_known;
};

class Array
{
public:
    Array(Context &context, const Json *json, std::string path)
        : m_context(&context)
        , m_json(json)
        , m_path(std::move(path))
    {}

    // 0 after a failure, so loops over a broken document stop at once.
    std::size_t size() const;
    Value at(std::size_t index) const;
    const std::string &path() const { return m_path; }

private:
    Context *m_context;
    const Json *m_json;
    std::string m_path;
};

// The root of a document: must be an object; checks "format" when `format` is non-empty.
// A format "kind/N" is accepted for the same kind and major version N ≤ the one we read.
Object rootObject(Context &context, const Json &doc, std::string_view format,
                  bool formatOptional = false);

enum class UnknownFields { Reject, Ignore };

// Reads one whole document: parses `text` within the size and depth limits, checks that the
// root is an object of `format` (empty: checked by `read`), runs `read(root)`, and rejects
// fields `read` did not ask for unless told to ignore them. The first problem anywhere is the
// Error, naming `source` and the JSON path.
template<typename Read>
auto readDocument(std::string_view text, std::string_view source, std::string_view format,
                  Read read, UnknownFields unknown = UnknownFields::Reject)
    -> Result<std::invoke_result_t<Read, Object &>>
{
    auto doc = parseDocument(text, source);
    if (!doc)
        return doc.error();
    Context context(source);
    Object root = rootObject(context, *doc, format);
    auto value = read(root);
    if (unknown == UnknownFields::Reject)
        root.finish();
    return context.result(std::move(value));
}

// Checks "<kind>/<major>" against `expected`; the message names the file and what we read.
void checkFormat(const Value &value, std::string_view expected);

// Writes pretty JSON (2-space indent, short scalar arrays on one line); invalid UTF-8 (from a
// GUI edit) is replaced, not thrown.
std::string dumpPretty(const OrderedJson &doc);

// ---- templates ----

template<typename E>
E Value::oneOf(std::span<const Choice<E>> choices, E fallback, std::string_view what,
               std::string_view alsoValid) const
{
    if (!present())
        return fallback;
    if (!expect(m_json->is_string(), "a string"))
        return fallback;
    const auto &text = m_json->get_ref<const std::string &>();
    std::vector<std::string_view> names;
    for (const Choice<E> &c : choices) {
        if (c.name == text)
            return c.value;
        names.push_back(c.name);
    }
    if (!alsoValid.empty())
        names.push_back(alsoValid);
    fail(describe() + " is not a known " + std::string(what) + "; valid: " + joinNames(names));
    return fallback;
}

} // namespace hetplan::jsonio
