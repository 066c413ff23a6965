// SPDX-License-Identifier: MIT
// STUB: to be replaced by the real validity checker.
#include "core/validity.h"

namespace cl {

std::vector<Violation> validate(const Transcript &, Format)
{
    return {{-1, "validity checker not implemented yet"}};
}

std::vector<Violation> validateConverted(const Transcript &, Format)
{
    return {{-1, "validity checker not implemented yet"}};
}

} // namespace cl
