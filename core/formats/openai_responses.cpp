// SPDX-License-Identifier: MIT
// STUB: to be replaced by the real OpenAIResponses loader and writer.
#include "core/formats/formats.h"

namespace cl::formats {

void loadOpenAIResponses(Transcript &t, const LoadContext &)
{
    t.addDiagnostic(0, "loader not implemented yet", Diagnostic::Severity::Error);
}

WriteResult writeOpenAIResponses(const Transcript &)
{
    WriteResult r;
    r.ok = false;
    r.error = "writer not implemented yet";
    return r;
}

} // namespace cl::formats
