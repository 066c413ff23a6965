// SPDX-License-Identifier: MIT
// STUB: to be replaced by the real Gemini loader and writer.
#include "core/formats/formats.h"

namespace cl::formats {

void loadGemini(Transcript &t, const LoadContext &)
{
    t.addDiagnostic(0, "loader not implemented yet", Diagnostic::Severity::Error);
}

WriteResult writeGemini(const Transcript &)
{
    WriteResult r;
    r.ok = false;
    r.error = "writer not implemented yet";
    return r;
}

} // namespace cl::formats

namespace cl::formats {
void loadGeminiContentArray(Transcript &t, std::size_t, const LoadContext &)
{
    t.addDiagnostic(0, "Gemini content loader not implemented yet", Diagnostic::Severity::Error);
}
nlohmann::json encodeGeminiContents(const Transcript &, std::vector<std::string> &) { return nlohmann::json::array(); }
} // namespace cl::formats
