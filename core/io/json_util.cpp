#include "core/io/json_util.h"

#include "core/io/files.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <vector>

namespace hetplan::jsonio {

namespace {

// Shows at most this much of a value a person wrote, cut at a UTF-8 character boundary.
constexpr std::size_t kShownChars = 48;

std::string shorten(std::string_view text)
{
    if (text.size() <= kShownChars)
        return std::string(text);
    std::size_t cut = kShownChars;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut;
    return std::string(text.substr(0, cut)) + "…";
}

std::string formatNumber(double x)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.10g", x);
    return buffer;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; people need the rest.
std::string stripExceptionId(std::string_view what)
{
    if (!what.empty() && what.front() == '[') {
        const std::size_t close = what.find("] ");
        if (close != std::string_view::npos)
            what.remove_prefix(close + 2);
    }
    return std::string(what);
}

// Rejects deep nesting before nlohmann builds (and later destroys) the tree.
std::optional<std::size_t> tooDeepAt(std::string_view text)
{
    int depth = 0;
    bool inString = false;
    bool escaped = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::nullopt;
}

// Small edit distance (capped inputs) to point at a likely typo of a missing field.
std::size_t editDistance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j]
                = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// The first key repeated within one object, found in one linear pass: a set of keys per open
// object, dropped when the object closes.
struct DuplicateKeyFinder : nlohmann::json_sax<Json>
{
    std::vector<std::set<std::string, std::less<>>> keysPerObject;
    std::optional<std::string> duplicate;

    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override
    {
        keysPerObject.emplace_back();
        return true;
    }
    bool key(string_t &key) override
    {
        if (!keysPerObject.back().insert(key).second)
            duplicate = key;
        return !duplicate; // the first repeated key is enough
    }
    bool end_object() override
    {
        keysPerObject.pop_back();
        return true;
    }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override
    {
        return false;
    }
};

std::string prefixed(const std::string &source, std::string_view path, std::string_view what)
{
    std::string message = source;
    message += ": ";
    if (!path.empty()) {
        message += path;
        message += ": ";
    }
    message += what;
    return message;
}

} // namespace

Result<Json> parseDocument(std::string_view text, std::string_view source)
{
    const std::string name(source);
    if (text.size() > kMaxInputFileBytes)
        return badInput(name + ": " + std::to_string(text.size())
                        + " bytes; HetPlan reads files of at most "
                        + std::to_string(kMaxInputFileBytes) + " bytes");
    if (const auto at = tooDeepAt(text))
        return badInput(name + ": byte " + std::to_string(*at) + ": nested deeper than "
                        + std::to_string(kMaxDepth) + " levels; HetPlan files are shallow");
    try {
        // nlohmann keeps the last of repeated keys; a person who wrote one twice meant one of
        // them, so the file is refused instead of silently dropping the other. The keys are
        // checked in a SAX pass of their own: the DOM parser's callback would rescan each
        // parent container at every object's end, quadratic in an array's length.
        Json json = Json::parse(text.begin(), text.end());
        DuplicateKeyFinder finder;
        Json::sax_parse(text.begin(), text.end(), &finder);
        if (finder.duplicate)
            return badInput(name + ": key '" + *finder.duplicate
                            + "' appears twice in one object; give each key once");
        return json;
    } catch (const Json::exception &e) {
        return badInput(name + ": not valid JSON: " + stripExceptionId(e.what()));
    } catch (const std::bad_alloc &) {
        return badInput(name + ": too large to parse");
    }
}

std::string Range::describe() const
{
    std::string text = "valid: ";
    text += minOpen ? "> " : ">= ";
    text += formatNumber(min);
    text += " and <= ";
    text += formatNumber(max);
    if (smallestPositive > 0)
        text += "; at least " + formatNumber(smallestPositive);
    return text;
}

std::string IntRange::describe() const
{
    return "valid: " + std::to_string(min) + ".." + std::to_string(max);
}

std::string joinNames(const std::vector<std::string_view> &names)
{
    std::string text;
    for (std::string_view n : names) {
        if (!text.empty())
            text += ", ";
        text += n;
    }
    return text;
}

void Context::fail(std::string_view path, std::string_view what)
{
    if (!m_message)
        m_message = prefixed(m_source, path, what);
}

// ---- Value ----

std::string Value::describe() const
{
    if (m_json == nullptr)
        return "nothing";
    switch (m_json->type()) {
    case Json::value_t::string:
        return "\"" + shorten(m_json->get_ref<const std::string &>()) + "\"";
    case Json::value_t::object:
        return "an object";
    case Json::value_t::array:
        return "an array";
    case Json::value_t::null:
        return "null";
    default:
        return shorten(m_json->dump());
    }
}

bool Value::expect(bool ok, std::string_view expected) const
{
    if (!ok) {
        std::string what = "expected ";
        what += expected;
        what += ", got ";
        what += describe();
        fail(what);
    }
    return ok;
}

int Value::integer(IntRange range, int fallback) const
{
    if (!present() || !expect(m_json->is_number(), "an integer"))
        return fallback;
    const auto outOfRange = [&] {
        fail(describe() + " is out of range; " + range.describe());
        return fallback;
    };
    if (m_json->is_number_unsigned()) {
        const auto v = m_json->get<std::uint64_t>();
        if (v > static_cast<std::uint64_t>(range.max) || static_cast<long long>(v) < range.min)
            return outOfRange();
        return static_cast<int>(v);
    }
    if (m_json->is_number_integer()) {
        const auto v = m_json->get<std::int64_t>();
        if (v < range.min || v > range.max)
            return outOfRange();
        return static_cast<int>(v);
    }
    const double v = m_json->get<double>();
    if (!expect(std::floor(v) == v, "a whole number"))
        return fallback;
    if (!(v >= double(range.min) && v <= double(range.max)))
        return outOfRange();
    return static_cast<int>(v);
}

double Value::number(Range range, double fallback) const
{
    if (!present() || !expect(m_json->is_number(), "a number"))
        return fallback;
    const double v = m_json->get<double>();
    if (!std::isfinite(v) || !range.contains(v)) {
        fail(describe() + " is out of range; " + range.describe());
        return fallback;
    }
    return v;
}

std::optional<double> Value::optionalNumber(Range range) const
{
    if (!present())
        return std::nullopt;
    const double v = number(range);
    if (m_context->failed())
        return std::nullopt;
    return v;
}

bool Value::boolean(bool fallback) const
{
    if (!present() || !expect(m_json->is_boolean(), "true or false"))
        return fallback;
    return m_json->get<bool>();
}

std::string Value::string(std::size_t maxChars, bool allowEmpty, std::string fallback) const
{
    if (!present() || !expect(m_json->is_string(), "a string"))
        return fallback;
    const auto &text = m_json->get_ref<const std::string &>();
    if (text.empty() && !allowEmpty) {
        fail("must not be empty");
        return fallback;
    }
    if (text.size() > maxChars) {
        fail("is " + std::to_string(text.size()) + " bytes long; at most "
             + std::to_string(maxChars));
        return fallback;
    }
    return text;
}

Object Value::object() const
{
    if (!present() || !expect(m_json->is_object(), "an object"))
        return Object(*m_context, nullptr, m_path);
    return Object(*m_context, m_json, m_path);
}

Array Value::array(std::size_t maxItems, std::size_t minItems) const
{
    if (!present() || !expect(m_json->is_array(), "an array"))
        return Array(*m_context, nullptr, m_path);
    const std::size_t n = m_json->size();
    if (n < minItems || n > maxItems) {
        std::string what = "has " + std::to_string(n) + (n == 1 ? " entry; " : " entries; ");
        what += minItems == maxItems
                    ? "expected exactly " + std::to_string(minItems)
                    : "valid: " + std::to_string(minItems) + ".." + std::to_string(maxItems);
        fail(what);
        return Array(*m_context, nullptr, m_path);
    }
    return Array(*m_context, m_json, m_path);
}

// ---- Object ----

std::string Object::childPath(std::string_view key) const
{
    if (m_path.empty())
        return std::string(key);
    return m_path + "." + std::string(key);
}

bool Object::has(std::string_view key) const
{
    return present() && m_json->contains(key);
}

Value Object::optional(std::string_view key)
{
    m_known.push_back(key);
    if (!present())
        return Value(*m_context, nullptr, childPath(key));
    const auto it = m_json->find(key);
    return Value(*m_context, it == m_json->end() ? nullptr : &*it, childPath(key));
}

Value Object::required(std::string_view key)
{
    Value v = optional(key);
    if (!present() || v.json() != nullptr)
        return v;
    std::string what = "missing; this field is required";
    constexpr std::size_t kMaxCompared = 64; // keys, and characters per key
    std::size_t compared = 0;
    for (const auto &[other, value] : m_json->items()) {
        (void)value;
        if (++compared > kMaxCompared)
            break;
        if (other.size() <= kMaxCompared && editDistance(other, key) <= 2) {
            what += " (the object has \"" + other + "\": a typo?)";
            break;
        }
    }
    v.fail(what);
    return v;
}

void Object::failField(std::string_view key, std::string_view what) const
{
    m_context->fail(childPath(key), what);
}

void Object::finish() const
{
    if (!present())
        return;
    for (const auto &[key, value] : m_json->items()) {
        (void)value;
        if (key == "comment" || key == "description" || (!key.empty() && key.front() == '_'))
            continue;
        bool known = false;
        for (std::string_view k : m_known)
            known = known || k == key;
        if (!known) {
            failField(shorten(key), "unknown field; valid: " + joinNames(m_known));
            return;
        }
    }
}

// ---- Array ----

std::size_t Array::size() const
{
    if (m_json == nullptr || m_context->failed())
        return 0;
    return m_json->size();
}

Value Array::at(std::size_t index) const
{
    const Json *element = index < size() ? &(*m_json)[index] : nullptr;
    return Value(*m_context, element, m_path + "[" + std::to_string(index) + "]");
}

// ---- documents ----

void checkFormat(const Value &value, std::string_view expected)
{
    const std::string text = value.string(kMaxNameChars);
    if (value.context().failed())
        return;
    const auto slash = [](std::string_view s) { return s.rfind('/'); };
    const std::string_view kind = expected.substr(0, slash(expected));
    const std::string_view gotKind
        = std::string_view(text).substr(0, std::min(slash(text), text.size()));
    const std::string what = "\"" + shorten(text) + "\": ";
    if (gotKind != kind || slash(text) == std::string::npos) {
        value.fail(what + "not a " + std::string(kind) + " file; expected \""
                   + std::string(expected) + "\"");
        return;
    }
    // Same kind: the major version decides; "1" and "1.2" are both major 1.
    std::string_view version = std::string_view(text).substr(slash(text) + 1);
    version = version.substr(0, version.find('.'));
    const std::string_view wanted = expected.substr(slash(expected) + 1);
    if (version != wanted)
        value.fail(what + "this HetPlan reads " + std::string(expected));
}

Object rootObject(Context &context, const Json &doc, std::string_view format, bool formatOptional)
{
    if (!doc.is_object()) {
        context.fail({}, "expected a JSON object at the top level");
        return Object(context, nullptr, {});
    }
    Object root(context, &doc, {});
    if (!format.empty()) {
        const Value f = root.optional("format");
        if (f.present())
            checkFormat(f, format);
        else if (!formatOptional)
            root.failField("format", "missing; expected \"" + std::string(format) + "\"");
    }
    return root;
}

namespace {

std::string dumpScalar(const OrderedJson &value)
{
    return value.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

// Short arrays of scalars ("position": [80, 60], "gpus": ["A:0", "A:1"]) on one line.
constexpr std::size_t kMaxInlineArrayChars = 80;

void writePretty(std::string &out, const OrderedJson &value, int indent)
{
    if (!value.is_structured()) {
        out += dumpScalar(value);
        return;
    }
    const bool isObject = value.is_object();
    if (value.empty()) {
        out += isObject ? "{}" : "[]";
        return;
    }
    if (!isObject) {
        bool flat = true;
        std::string line = "[";
        for (const OrderedJson &element : value) {
            flat = flat && !element.is_structured();
            if (!flat || line.size() > kMaxInlineArrayChars)
                break;
            line += (line.size() > 1 ? ", " : "") + dumpScalar(element);
        }
        if (flat && line.size() < kMaxInlineArrayChars) {
            out += line + "]";
            return;
        }
    }
    out += isObject ? "{\n" : "[\n";
    bool first = true;
    for (auto it = value.begin(); it != value.end(); ++it) {
        out += first ? "" : ",\n";
        first = false;
        out.append(std::size_t(indent + 2), ' ');
        if (isObject)
            out += dumpScalar(OrderedJson(it.key())) + ": ";
        writePretty(out, it.value(), indent + 2);
    }
    out += "\n";
    out.append(std::size_t(indent), ' ');
    out += isObject ? "}" : "]";
}

} // namespace

std::string dumpPretty(const OrderedJson &doc)
{
    std::string out;
    writePretty(out, doc, 0);
    return out + "\n";
}

} // namespace hetplan::jsonio
