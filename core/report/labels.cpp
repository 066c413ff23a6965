// SPDX-License-Identifier: MIT
#include "core/report/labels.h"

#include "core/analysis/analysis.h"
#include "core/report/textformat.h"
#include "core/util/json.h"

namespace cl::report {

std::string callSubject(const Block &use)
{
    if (const auto paths = analysis::toolPaths(use); !paths.empty())
        return paths.front();
    if (std::string command = analysis::shellCommand(use); !command.empty())
        return command;
    for (const char *key : {"pattern", "url", "query", "description", "prompt"})
        if (const nlohmann::json *v = use.input.is_object() ? json::child(use.input, key) : nullptr; v && v->is_string())
            return v->get<std::string>();
    return {};
}

std::string callLabel(const Block &use)
{
    const std::string name = use.toolName.empty() ? std::string("tool") : use.toolName;
    const std::string subject = callSubject(use);
    return subject.empty() ? name : name + " " + excerpt(subject, 100);
}

std::string resultLabel(const Transcript &t, const Block &result)
{
    if (result.pairMessage >= 0 && std::size_t(result.pairMessage) < t.messages.size()) {
        const Message &call = t.messages[std::size_t(result.pairMessage)];
        if (result.pairBlock >= 0 && std::size_t(result.pairBlock) < call.blocks.size())
            return callLabel(call.blocks[std::size_t(result.pairBlock)]);
    }
    return result.toolName.empty() ? std::string("tool") : result.toolName;
}

std::string messageRoleAndKind(const Message &m)
{
    std::string s(roleName(m.role));
    switch (m.kind) {
    case MessageKind::Conversation: break;
    case MessageKind::CompactBoundary: s += " \u00b7 compaction"; break;
    case MessageKind::MicrocompactBoundary: s += " \u00b7 microcompaction"; break;
    case MessageKind::CompactSummary: s += " \u00b7 compaction summary"; break;
    case MessageKind::Event: s += " \u00b7 event"; break;
    case MessageKind::Meta: s += " \u00b7 metadata"; break;
    }
    return s;
}

} // namespace cl::report
