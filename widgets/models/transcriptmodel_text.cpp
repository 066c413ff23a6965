// SPDX-License-Identifier: MIT
#include "widgets/models/transcriptmodel_text.h"
#include "widgets/models/transcriptmodel.h"

#include "core/model/servertools.h"
#include "core/util/json.h"

#include <QDateTime>
#include <QLocale>

namespace cl::gui::text {

QString fromUtf8(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString roleLabel(const Message &m)
{
    if (m.kind == MessageKind::Conversation)
        return fromUtf8(roleName(m.role));
    return fromUtf8(messageKindName(m.kind));
}

QString blockPreview(const Block &b)
{
    switch (b.type) {
    case BlockType::ToolUse:
        // The input is what the tool was asked to do; compact JSON reads well on one line.
        return fromUtf8(b.toolName) + u": " + TranscriptModel::flattenPreview(json::dump(b.input));
    case BlockType::ToolResult: {
        // A web search's result reads as its pages, not as the JSON that carries them.
        const std::string server = serverResultSummary(b);
        return (b.toolName.empty() ? QString() : fromUtf8(b.toolName) + u" → ")
               + (b.isError && server.empty() ? QStringLiteral("[error] ") : QString())
               + TranscriptModel::flattenPreview(server.empty() ? std::string_view(b.text) : std::string_view(server));
    }
    case BlockType::Image:
    case BlockType::Document:
        return QStringLiteral("%1 (%2 bytes)").arg(fromUtf8(b.mediaType)).arg(qulonglong(b.dataSize));
    case BlockType::RedactedThinking:
        return QStringLiteral("(redacted)");
    default:
        return TranscriptModel::flattenPreview(b.text);
    }
}

QString messagePreview(const Message &m)
{
    for (const Block &b : m.blocks)
        if (b.type == BlockType::Text && !b.text.empty())
            return TranscriptModel::flattenPreview(b.text);
    if (!m.blocks.empty())
        return blockPreview(m.blocks.front());
    if (!m.meta.is_null())
        return TranscriptModel::flattenPreview(json::dump(m.meta));
    return fromUtf8(m.type);
}

QString messageToolTip(const Message &m)
{
    QStringList lines;
    lines << QStringLiteral("%1 (%2)").arg(roleLabel(m), fromUtf8(m.type));
    if (!m.timestamp.empty())
        lines << fromUtf8(m.timestamp);
    if (m.line)
        lines << QStringLiteral("source line %1").arg(m.line);
    if (!m.model.empty())
        lines << QStringLiteral("model %1").arg(fromUtf8(m.model));
    if (m.usage)
        lines << QStringLiteral("measured context %L1 tokens, output %L2").arg(m.usage->contextTokens()).arg(m.usage->outputTokens);
    if (m.sidechain)
        lines << QStringLiteral("sidechain %1").arg(fromUtf8(m.agentId));
    if (m.isMeta)
        lines << QStringLiteral("meta (not shown to the user)");
    return lines.join(u'\n');
}

QString blockToolTip(const Block &b)
{
    QStringList lines{fromUtf8(blockTypeName(b.type))};
    if (!b.toolName.empty())
        lines << QStringLiteral("tool %1").arg(fromUtf8(b.toolName));
    if (!b.toolId.empty())
        lines << QStringLiteral("id %1").arg(fromUtf8(b.toolId));
    if (b.isError)
        lines << QStringLiteral("error result");
    if (!b.text.empty())
        lines << QStringLiteral("%L1 bytes of text").arg(qulonglong(b.text.size()));
    return lines.join(u'\n');
}

QString messageFilterText(const Message &m)
{
    return roleLabel(m) + u' ' + fromUtf8(m.type) + u' ' + fromUtf8(m.plainText());
}

QString blockFilterText(const Block &b)
{
    QString s = fromUtf8(blockTypeName(b.type)) + u' ' + fromUtf8(b.toolName) + u' ' + fromUtf8(b.text);
    if (!b.input.is_null())
        s += u' ' + fromUtf8(json::dump(b.input));
    return s;
}

QString timeLabel(std::int64_t timeMs)
{
    if (timeMs == kNoTime)
        return {};
    return QDateTime::fromMSecsSinceEpoch(timeMs).toString(QStringLiteral("HH:mm:ss"));
}

bool isSecondary(const Message &m)
{
    return m.sidechain || m.isMeta || m.history || m.isEvent();
}

bool isBoundary(const Message &m)
{
    return m.kind == MessageKind::CompactBoundary || m.kind == MessageKind::MicrocompactBoundary;
}

} // namespace cl::gui::text
