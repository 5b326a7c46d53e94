// Looking into a file without reading all of it: which kind it is, which cluster a plan names.
#include "core/io/formats.h"
#include "core/io/json_util.h"

namespace hetplan {

using namespace jsonio;

Result<std::string> fileFormat(std::string_view text, std::string_view source)
{
    auto doc = parseDocument(text, source);
    if (!doc)
        return doc.error();
    Context context(source);
    Object root = rootObject(context, *doc, {});
    const Value format = root.optional("format");
    if (!context.failed() && !format.present())
        root.failField("format", "missing; every HetPlan file names its kind, e.g. \""
                                     + std::string(kClusterFormat) + "\"");
    return context.result(format.string(kMaxNameChars));
}

Result<std::string> planClusterName(std::string_view text, std::string_view source)
{
    return readDocument(
        text, source, kPlanFormat,
        [](Object &root) { return root.required("cluster").string(kMaxNameChars); },
        UnknownFields::Ignore);
}

} // namespace hetplan
