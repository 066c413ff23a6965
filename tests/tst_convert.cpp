// SPDX-License-Identifier: MIT
// Conversion between the API formats and from agent sessions: every export reloads, passes the
// target's validity rules and keeps the conversation (text per role, tool calls and their results).
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"

#include "test_support.h"

#include <QtTest>

#include <filesystem>

using namespace cl;

namespace {

const std::vector<Format> kApi{Format::OpenAIChat, Format::OpenAIResponses, Format::Anthropic, Format::Gemini};

std::string describe(const std::vector<Violation> &v)
{
    std::string s;
    for (const auto &x : v)
        s += "[" + std::to_string(x.message) + "] " + x.reason + "; ";
    return s;
}

std::shared_ptr<Transcript> reload(const std::string &bytes, Format f)
{
    LoadOptions o;
    o.format = f;
    return loadBytes(bytes, "converted.json", o).transcript;
}

// All text of one role, in order (system prompt, user text, assistant text).
std::string roleText(const Transcript &t, Role role)
{
    std::string out;
    for (const auto &m : t.messages)
        if (m.isConversation() && !m.sidechain && m.role == role)
            for (const auto &b : m.blocks)
                if (b.type == BlockType::Text)
                    out += b.text + "\n";
    return out;
}

// Every text block of `role` in `from` appears, in order, in the same role's text of `to`.
void expectTextKept(const Transcript &from, const Transcript &to, Role role)
{
    const std::string target = roleText(to, role);
    std::size_t pos = 0;
    for (const auto &m : from.messages) {
        if (!m.isConversation() || m.sidechain || m.role != role)
            continue;
        for (const auto &b : m.blocks) {
            if (b.type != BlockType::Text || b.text.empty())
                continue;
            const std::size_t found = target.find(b.text, pos);
            QVERIFY2(found != std::string::npos, ("lost " + std::string(roleName(role)) + " text: " + b.text).c_str());
            pos = found + b.text.size();
        }
    }
}

struct Call {
    std::string id, name, result;
};
std::vector<Call> calls(const Transcript &t)
{
    std::vector<Call> out;
    for (const auto &m : t.messages)
        for (const auto &b : m.blocks)
            if (b.type == BlockType::ToolUse && m.isConversation() && !m.sidechain) {
                Call c{b.toolId, b.toolName, "<none>"};
                if (b.pairMessage >= 0)
                    c.result = t.messages[b.pairMessage].blocks[b.pairBlock].text;
                out.push_back(c);
            }
    return out;
}

// exactIds: false when the writer noted that it had to rename ids (duplicates, characters
// the target rejects); names and results must still match one for one.
void expectCallsKept(const Transcript &from, const Transcript &to, bool exactIds = true)
{
    const auto a = calls(from), b = calls(to);
    QCOMPARE(b.size(), a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QCOMPARE(b[i].name, a[i].name);
        QCOMPARE(b[i].result, a[i].result == "<none>" ? std::string("[no result recorded]") : a[i].result);
        if (exactIds && a[i].id.rfind("synth_", 0) != 0) // invented ids are not part of the conversation
            QVERIFY2(b[i].id == a[i].id, (a[i].id + " became " + b[i].id).c_str());
    }
}

bool hasNote(const WriteResult &w, const char *needle)
{
    for (const auto &n : w.notes)
        if (n.find(needle) != std::string::npos)
            return true;
    return false;
}

Message message(Role role, MessageKind kind = MessageKind::Conversation)
{
    Message m;
    m.role = role;
    m.kind = kind;
    return m;
}

Block block(BlockType type, std::string text, std::string id = {}, std::string name = {})
{
    Block b;
    b.type = type;
    b.text = std::move(text);
    b.toolId = std::move(id);
    b.toolName = std::move(name);
    if (type == BlockType::ToolUse)
        b.input = nlohmann::json{{"path", "a.txt"}};
    return b;
}

// What a Claude Code session looks like in the neutral model, with everything an API cannot take.
Transcript claudeLike()
{
    Transcript t;
    t.format = Format::ClaudeCode;
    t.header = nlohmann::json{{"sessionId", "s1"}};
    Message meta = message(Role::Unknown, MessageKind::Meta);
    meta.blocks.push_back(block(BlockType::Raw, "{\"type\":\"file-history-snapshot\"}"));
    t.messages.push_back(meta);
    Message u1 = message(Role::User);
    u1.isMeta = true;
    u1.blocks.push_back(block(BlockType::Text, "<command-name>/init</command-name>"));
    t.messages.push_back(u1);
    Message u2 = message(Role::User);
    u2.blocks.push_back(block(BlockType::Text, "Please read a.txt"));
    t.messages.push_back(u2); // consecutive user messages
    Message a1 = message(Role::Assistant);
    a1.model = "claude-opus-4-1";
    a1.blocks.push_back(block(BlockType::Thinking, "The user wants a.txt."));
    a1.blocks.push_back(block(BlockType::Text, "Reading."));
    a1.blocks.push_back(block(BlockType::ToolUse, "", "toolu_A", "Read"));
    t.messages.push_back(a1);
    Message r1 = message(Role::User);
    r1.blocks.push_back(block(BlockType::ToolResult, "hello from a.txt", "toolu_A"));
    t.messages.push_back(r1);
    Message side = message(Role::Assistant);
    side.sidechain = true;
    side.blocks.push_back(block(BlockType::Text, "subagent chatter"));
    t.messages.push_back(side);
    Message ev = message(Role::System, MessageKind::Event);
    ev.blocks.push_back(block(BlockType::Text, "api_error: overloaded"));
    t.messages.push_back(ev);
    Message a2 = message(Role::Assistant);
    a2.blocks.push_back(block(BlockType::ToolUse, "", "toolu_B", "Bash")); // never answered
    t.messages.push_back(a2);
    t.messages.push_back(message(Role::Unknown, MessageKind::CompactBoundary));
    Message orphan = message(Role::User);
    orphan.blocks.push_back(block(BlockType::ToolResult, "stray output", "toolu_GONE"));
    orphan.blocks.push_back(block(BlockType::Text, "Now summarise."));
    t.messages.push_back(orphan);
    Message img = message(Role::User);
    Block image = block(BlockType::Image, "");
    image.mediaType = "image/png";
    image.dataSize = 100;
    img.blocks.push_back(image);
    t.messages.push_back(img);
    Message a3 = message(Role::Assistant);
    a3.blocks.push_back(block(BlockType::Text, "a.txt says hello."));
    t.messages.push_back(a3);
    linkToolPairs(t);
    return t;
}

} // namespace

class TestConvert : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matrix_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("from");
        QTest::addColumn<int>("to");
        const std::pair<const char *, Format> sources[] = {{"openai-chat.json", Format::OpenAIChat},
                                                           {"openai-responses.json", Format::OpenAIResponses},
                                                           {"anthropic.json", Format::Anthropic},
                                                           {"gemini.json", Format::Gemini}};
        for (const auto &[file, from] : sources)
            for (Format to : kApi)
                QTest::newRow((std::string(formatName(from)) + " -> " + std::string(formatName(to))).c_str())
                    << QString::fromUtf8(file) << int(from) << int(to);
    }
    void matrix()
    {
        QFETCH(QString, file);
        QFETCH(int, from);
        QFETCH(int, to);
        LoadOptions o;
        o.format = Format(from);
        const auto src = loadFile(std::string(CL_TEST_DATA_DIR) + "/api/" + file.toStdString(), o).transcript;
        QVERIFY(src);
        QVERIFY2(validate(*src, Format(from)).empty(), describe(validate(*src, Format(from))).c_str());
        const WriteResult w = writeTranscript(*src, Format(to));
        QVERIFY2(w.ok, w.error.c_str());
        const auto out = reload(w.bytes, Format(to));
        QVERIFY(out);
        const auto v = validate(*out, Format(to));
        QVERIFY2(v.empty(), (describe(v) + "\n" + w.bytes).c_str());
        for (Role r : {Role::System, Role::User, Role::Assistant})
            expectTextKept(*src, *out, r);
        expectCallsKept(*src, *out);
        if (!json::str(src->header, "model").empty() && Format(to) != Format::Gemini)
            QCOMPARE(json::str(out->header, "model"), json::str(src->header, "model"));
        // Converting back again stays valid and keeps the calls.
        const auto back = reload(writeTranscript(*out, Format(from)).bytes, Format(from));
        QVERIFY2(validate(*back, Format(from)).empty(), describe(validate(*back, Format(from))).c_str());
        expectCallsKept(*src, *back);
    }

    void fromClaudeCodeLikeSession_data()
    {
        QTest::addColumn<int>("to");
        for (Format to : kApi)
            QTest::newRow(std::string(formatName(to)).c_str()) << int(to);
    }
    void fromClaudeCodeLikeSession()
    {
        QFETCH(int, to);
        const Transcript t = claudeLike();
        const auto v = validateConverted(t, Format(to));
        QVERIFY2(v.empty(), describe(v).c_str());
        const WriteResult w = writeTranscript(t, Format(to));
        QVERIFY(hasNote(w, "non-conversation"));
        QVERIFY(hasNote(w, "sidechain"));
        QVERIFY(hasNote(w, "[no result recorded]"));
        QVERIFY(hasNote(w, "without a matching call"));
        QVERIFY(hasNote(w, "placeholder"));
        const auto out = reload(w.bytes, Format(to));
        expectTextKept(t, *out, Role::User);
        expectTextKept(t, *out, Role::Assistant);
        QVERIFY(w.bytes.find("subagent chatter") == std::string::npos);
        QVERIFY(w.bytes.find("api_error") == std::string::npos);
        QVERIFY(roleText(*out, Role::User).find("stray output") != std::string::npos); // orphan kept as text
        const auto c = calls(*out);
        QCOMPARE(c.size(), 2u);
        QCOMPARE(c[0].id, std::string("toolu_A"));
        QCOMPARE(c[0].result, std::string("hello from a.txt"));
        QCOMPARE(c[1].name, std::string("Bash"));
        QCOMPARE(c[1].result, std::string("[no result recorded]"));
        if (Format(to) == Format::Gemini) {
            QVERIFY(w.bytes.find("The user wants a.txt.") != std::string::npos); // thought part
        } else {
            QVERIFY(w.bytes.find("The user wants a.txt.") == std::string::npos); // unsigned / no place
            QVERIFY(hasNote(w, "thinking"));
        }
        if (Format(to) == Format::Anthropic || Format(to) == Format::OpenAIChat
            || Format(to) == Format::OpenAIResponses)
            QCOMPARE(json::str(out->header, "model"), std::string("claude-opus-4-1"));
    }

    void samplesConvert()
    {
        const std::filesystem::path dir(CL_SAMPLES_DIR);
        CL_REQUIRE(std::filesystem::exists(dir), "no sample transcripts");
        int checked = 0;
        for (const auto &entry : std::filesystem::recursive_directory_iterator(dir)) {
            const auto ext = entry.path().extension();
            if (!entry.is_regular_file() || (ext != ".jsonl" && ext != ".json")
                || entry.path().parent_path().filename() == "schema")
                continue;
            const LoadResult r = loadFile(entry.path().string());
            QVERIFY2(r.ok(), r.error.c_str());
            for (Format to : kApi) {
                const auto v = validateConverted(*r.transcript, to);
                QVERIFY2(v.empty(), (entry.path().filename().string() + " -> " + std::string(formatName(to)) + ": "
                                     + describe(v))
                                        .c_str());
                const WriteResult w = writeTranscript(*r.transcript, to);
                const auto out = reload(w.bytes, to);
                expectCallsKept(*r.transcript, *out, !hasNote(w, "duplicate id") && !hasNote(w, "rewritten"));
            }
            ++checked;
        }
        QVERIFY(checked > 0);
    }
};

QTEST_GUILESS_MAIN(TestConvert)
#include "tst_convert.moc"
