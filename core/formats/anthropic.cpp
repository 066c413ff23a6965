// SPDX-License-Identifier: MIT
// STUB: to be replaced by the real Anthropic loader and writer.
#include "core/formats/formats.h"

namespace cl::formats {

void loadAnthropic(Transcript &t, const LoadContext &)
{
    t.addDiagnostic(0, "loader not implemented yet", Diagnostic::Severity::Error);
}

WriteResult writeAnthropic(const Transcript &)
{
    WriteResult r;
    r.ok = false;
    r.error = "writer not implemented yet";
    return r;
}

} // namespace cl::formats
