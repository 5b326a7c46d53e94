// parseModel on arbitrary bytes; accepted models must survive writeModel unchanged.
#include "core/io/formats.h"
#include "fuzz_check.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    auto model = hetplan::parseModel(text, "fuzz.model.json");
    if (!model)
        return 0;
    HETPLAN_FUZZ_CHECK(model->hidden % model->heads == 0);
    HETPLAN_FUZZ_CHECK(model->heads % model->kvHeads == 0);
    auto again = hetplan::parseModel(hetplan::writeModel(*model), "written");
    HETPLAN_FUZZ_CHECK(again.ok());
    HETPLAN_FUZZ_CHECK(*again == *model);
    return 0;
}
