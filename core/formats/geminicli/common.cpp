// SPDX-License-Identifier: MIT
// Helpers shared by the Gemini CLI loader and writer.
#include "core/formats/geminicli/internal.h"

namespace cl::formats {

namespace geminicli {

using Json = nlohmann::json;

std::string thoughtText(const Json &thought)
{
    if (thought.is_string())
        return thought.get<std::string>();
    const std::string subject = json::str(thought, "subject");
    const std::string description = json::str(thought, "description");
    if (subject.empty())
        return description;
    return description.empty() ? subject : subject + "\n" + description;
}

std::string resultText(const Json &result, bool &isError)
{
    if (result.is_null())
        return {};
    if (result.is_string())
        return result.get<std::string>();
    if (!result.is_array())
        return resultText(Json::array({result}), isError);
    std::string out;
    for (const auto &part : result) {
        std::string piece;
        if (part.is_string()) {
            piece = part.get<std::string>();
        } else if (const Json *fr = json::object(part, "functionResponse")) {
            const Json *response = json::child(*fr, "response");
            if (!response) {
                piece = {};
            } else if (const Json *o = json::child(*response, "output")) {
                piece = json::flattenText(*o);
            } else if (const Json *e = json::child(*response, "error")) {
                piece = json::flattenText(*e);
                isError = true;
            } else if (const Json *c = json::child(*response, "content")) {
                piece = json::flattenText(*c);
            } else {
                piece = json::flattenText(*response);
            }
        } else if (const Json *t = json::child(part, "text"); t && t->is_string()) {
            piece = t->get<std::string>();
        } else if (json::object(part, "inlineData")) {
            piece = "[" + json::str(*json::object(part, "inlineData"), "mimeType", "inline data") + "]";
        } else {
            piece = json::dump(part);
        }
        if (out.empty())
            out = std::move(piece); // the usual single part: no second copy of a long result
        else if (!piece.empty()) {
            out += '\n';
            out += piece;
        }
    }
    return out;
}

LegacyLayout legacyLayout(std::string_view doc)
{
    LegacyLayout l;
    std::size_t start = doc.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    const json::Range r = json::topLevelValue(doc.substr(start), "messages");
    if (r.end <= r.begin || doc[start + r.begin] != '[')
        return l;
    l.arrayBegin = start + r.begin;
    l.arrayEnd = start + r.end;
    l.elements = json::arrayElements(doc, l.arrayBegin);
    const std::string_view inside = doc.substr(l.arrayBegin + 1, l.arrayEnd - l.arrayBegin - 2);
    l.ok = !l.elements.empty() || inside.find_first_not_of(" \t\r\n") == std::string_view::npos;
    return l;
}

} // namespace geminicli

} // namespace cl::formats
