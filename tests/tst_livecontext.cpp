// SPDX-License-Identifier: MIT
// The live context (docs/design/analysis.md, "Live context"): what the model sees after the last
// compaction, in the shapes the real agents write today. The fixtures are written here in the
// structure real Gemini CLI 0.61 and Codex 0.169 sessions have (tests/agents/ records real ones in
// CI), with our own texts.
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "core/util/json.h"

#include "test_support.h"

#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <fstream>
#include <iterator>

using namespace cl;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

std::shared_ptr<Transcript> load(const std::string &bytes, const char *name, bool wholeHistory = false)
{
    LoadOptions o;
    o.wholeHistory = wholeHistory;
    return loadBytes(bytes, name, o).transcript;
}

int count(const Transcript &t, Diagnostic::Severity s)
{
    int n = 0;
    for (const auto &d : t.diagnostics)
        n += d.severity == s;
    return n;
}

std::string readFile(const char *path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// A Gemini CLI session: a first run with one shell call (its result inline and again as a user
// line), a resume that restates the history ($set.messages, results as "<turn>_response"), a second
// call, a compression ($set.messages with a snapshot and new ids) and a last answer.
std::string geminiSession() { return readFile(CL_TEST_DATA_DIR "/geminicli/live-compressed.jsonl"); }

// A Codex rollout with ordinals and an automatic compaction: the compacted line's replacement
// history (the kept request and the summary) is what the model sees next.
std::string codexRollout() { return readFile(CL_TEST_DATA_DIR "/codex/live-compacted.jsonl"); }

std::vector<std::int64_t> ordinals(const std::string &bytes)
{
    std::vector<std::int64_t> out;
    for (const auto &span : json::splitLines(bytes)) {
        const auto o = nlohmann::json::parse(bytes.substr(span.offset, span.contentLength));
        out.push_back(o.contains("ordinal") ? o["ordinal"].get<std::int64_t>() : -1);
    }
    return out;
}

std::string liveText(const Transcript &t)
{
    std::string s;
    for (const auto &m : t.messages)
        if (m.isConversation())
            for (const auto &b : m.blocks)
                s += b.text + "|";
    return s;
}

// A subagent's lines: every one a sidechain, the first one's parent in the parent session.
std::string agentLines(const std::string &firstParent)
{
    using nlohmann::json;
    const json base = {{"isSidechain", true}, {"userType", "external"}, {"cwd", "/w"}, {"sessionId", "s1"}, {"agentId", "a1b2c3"}};
    auto line = [&](json extra) {
        json o = base;
        o.update(extra);
        return o.dump() + "\n";
    };
    auto usage = [](int created, int read) {
        return json{{"input_tokens", 5}, {"cache_creation_input_tokens", created}, {"cache_read_input_tokens", read}, {"output_tokens", 20}};
    };
    return line({{"parentUuid", firstParent.empty() ? json(nullptr) : json(firstParent)}, {"type", "user"}, {"uuid", "u1"}, {"timestamp", "2026-01-01T00:00:00Z"}, {"message", {{"role", "user"}, {"content", "Find the config files"}}}})
           + line({{"parentUuid", "u1"}, {"type", "assistant"}, {"uuid", "a1"}, {"timestamp", "2026-01-01T00:00:01Z"}, {"message", {{"id", "msg_1"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", json::array({{{"type", "tool_use"}, {"id", "toolu_1"}, {"name", "Glob"}, {"input", {{"pattern", "*.toml"}}}}})}, {"usage", usage(3000, 0)}}}})
           + line({{"parentUuid", "a1"}, {"type", "user"}, {"uuid", "u2"}, {"timestamp", "2026-01-01T00:00:02Z"}, {"message", {{"role", "user"}, {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", "toolu_1"}, {"content", "a.toml\nb.toml"}}})}}}})
           + line({{"parentUuid", "u2"}, {"type", "assistant"}, {"uuid", "a2"}, {"timestamp", "2026-01-01T00:00:03Z"}, {"message", {{"id", "msg_2"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", json::array({{{"type", "text"}, {"text", "Two config files: a.toml and b.toml."}}})}, {"usage", usage(0, 3100)}}}});
}

} // namespace

class TestLiveContext : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void geminiRestatementsAndCompression()
    {
        auto t = load(geminiSession(), "session-x.jsonl");
        QVERIFY(t);
        QCOMPARE(t->format, Format::GeminiCli);
        QCOMPARE(count(*t, Diagnostic::Severity::Warning), 0);
        QCOMPARE(count(*t, Diagnostic::Severity::Error), 0);
        QVERIFY2(validate(*t, Format::GeminiCli).empty(), "the recorded shape is valid");
        // One compression (the snapshot's new ids); the restatement is not one.
        int boundaries = 0;
        for (const auto &m : t->messages)
            boundaries += m.kind == MessageKind::CompactBoundary;
        QCOMPARE(boundaries, 1);
        QVERIFY(liveStart(*t) > 0);
        // Live: the compression's messages and the last answer; the first listing is history.
        const std::string live = liveText(*t);
        QVERIFY2(live.find("state_snapshot") != std::string::npos, live.c_str());
        QVERIFY2(live.find("COUNT-TWO") != std::string::npos, live.c_str());
        QVERIFY2(live.find("a.txt has two lines.") != std::string::npos, live.c_str());
        QVERIFY2(live.find("LISTING-ONE") == std::string::npos, live.c_str());
        // The whole-history view has no history and still loads every line.
        auto whole = load(geminiSession(), "session-x.jsonl", true);
        QCOMPARE(liveStart(*whole), std::size_t(0));
        QVERIFY(tokens::totalEstimate(*whole) > tokens::totalEstimate(*t));
        QCOMPARE(writeTranscript(*t, Format::GeminiCli).bytes, geminiSession()); // lossless
    }

    void geminiRepeatedResultsPairWithTheirCall()
    {
        // Before the compression: the restated history sends the listing twice; both answer c1.
        const std::string bytes = geminiSession();
        const std::string firstRun = bytes.substr(0, bytes.find("{\"id\":\"u3\""));
        auto t = load(firstRun, "session-y.jsonl");
        QVERIFY(t);
        QCOMPARE(count(*t, Diagnostic::Severity::Warning), 0);
        int results = 0, repeated = 0;
        for (const auto &m : t->messages)
            for (const auto &b : m.blocks)
                if (m.isConversation() && b.type == BlockType::ToolResult) {
                    ++results;
                    repeated += b.repeated;
                    QVERIFY(b.pairMessage >= 0);
                }
        QCOMPARE(results, 2);
        QCOMPARE(repeated, 1);
        QVERIFY(validate(*t, Format::GeminiCli).empty());
        // Removing every tool round removes both copies: the result stays valid.
        const auto *s = strategy::find("trim-tools");
        QVERIFY(s);
        strategy::Input in(*t);
        const auto r = strategy::run(*s, in, nlohmann::json{{"keepLastToolRounds", 0}});
        QVERIFY2(r.violations.empty(), r.violations.empty() ? "" : r.violations[0].reason.c_str());
    }

    void geminiStrategyEditsTheLiveConversation()
    {
        auto t = load(geminiSession(), "session-x.jsonl");
        const auto *s = strategy::find("trim-tools");
        strategy::Input in(*t);
        const auto r = strategy::run(*s, in, nlohmann::json{{"keepLastToolRounds", 0}});
        QVERIFY2(r.changed, r.note.c_str());
        QVERIFY(r.violations.empty());
        // Only live messages changed: no history message has another fate than kept.
        for (std::size_t i = 0; i < t->messages.size(); ++i)
            if (t->messages[i].history)
                QCOMPARE(r.fates[i].fate, strategy::Fate::Kept);
        const auto w = writeTranscript(r.materialize(*t), Format::GeminiCli);
        QVERIFY(w.ok);
        auto back = load(w.bytes, "session-x.jsonl");
        QCOMPARE(count(*back, Diagnostic::Severity::Warning), 0);
        QVERIFY(validate(*back, Format::GeminiCli).empty());
        // The compression line now holds the trimmed conversation Gemini CLI resumes from.
        const std::string live = liveText(*back);
        QVERIFY2(live.find("COUNT-TWO") == std::string::npos, live.c_str());
        QVERIFY2(live.find("state_snapshot") != std::string::npos, live.c_str());
        QVERIFY(tokens::totalEstimate(*back) < tokens::totalEstimate(*t));
    }

    // A subagent file opened on its own is a conversation of its own, linked to the Task call of
    // the parent session beside it; a compaction agent's file (its first parent in the parent
    // session) loads without warnings too.
    void agentFilesAreConversations()
    {
        QTemporaryDir dir;
        const QString sub = dir.filePath(QStringLiteral("s1/subagents"));
        QVERIFY(QDir().mkpath(sub));
        const std::string agentPath = QString(sub + QStringLiteral("/agent-a1b2c3.jsonl")).toStdString();
        std::ofstream(agentPath, std::ios::binary) << agentLines("parent-uuid-in-session");
        using nlohmann::json;
        const json call = {{"parentUuid", nullptr}, {"isSidechain", false}, {"type", "assistant"}, {"uuid", "p1"}, {"sessionId", "s1"}, {"message", {{"id", "msg_p"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", json::array({{{"type", "tool_use"}, {"id", "toolu_task"}, {"name", "Task"}, {"input", {{"prompt", "find"}}}}})}}}};
        const json result = {{"parentUuid", "p1"}, {"isSidechain", false}, {"type", "user"}, {"uuid", "p2"}, {"sessionId", "s1"}, {"toolUseResult", {{"agentId", "a1b2c3"}, {"status", "completed"}}}, {"message", {{"role", "user"}, {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", "toolu_task"}, {"content", "done"}}})}}}};
        std::ofstream(dir.filePath(QStringLiteral("s1.jsonl")).toStdString(), std::ios::binary) << call.dump() << "\n"
                                                                                                << result.dump() << "\n";

        const auto r = loadFile(agentPath);
        QVERIFY(r.ok());
        const Transcript &t = *r.transcript;
        QCOMPARE(count(t, Diagnostic::Severity::Warning), 0);
        QCOMPARE(t.format, Format::ClaudeCode);
        QVERIFY(tokens::totalEstimate(t) > 0);
        for (const auto &m : t.messages)
            QVERIFY(!m.sidechain);
        QCOMPARE(t.header.value("parentToolUseId", ""), std::string("toolu_task"));
        QCOMPARE(t.header.value("parentLine", 0), 2);
        // A strategy acts on it, and what it writes stays a sidechain file.
        const auto *s = strategy::find("trim-tools");
        strategy::Input in(t);
        const auto res = strategy::run(*s, in, nlohmann::json{{"keepLastToolRounds", 0}});
        QVERIFY2(res.changed, res.note.c_str());
        const auto w = writeTranscript(res.materialize(t), Format::ClaudeCode);
        QVERIFY(w.ok);
        for (const auto &span : cl::json::splitLines(w.bytes)) {
            const auto o = nlohmann::json::parse(w.bytes.substr(span.offset, span.contentLength));
            QVERIFY(o.value("isSidechain", false));
        }
        // Converted to an API format, its conversation is there.
        const auto api = writeTranscript(t, Format::Anthropic);
        QVERIFY(api.bytes.find("Two config files") != std::string::npos);
    }

    // After a Claude Code microcompact boundary the results it lists are sent as a placeholder:
    // the live context counts the placeholder, conversions write it, the file keeps the output.
    void microcompactClearsResults()
    {
        using nlohmann::json;
        const std::string big(4000, 'x');
        auto line = [](json o) { return o.dump() + "\n"; };
        const std::string bytes = line({{"parentUuid", nullptr}, {"isSidechain", false}, {"type", "user"}, {"uuid", "u1"}, {"sessionId", "s"}, {"message", {{"role", "user"}, {"content", "read it"}}}})
                                  + line({{"parentUuid", "u1"}, {"isSidechain", false}, {"type", "assistant"}, {"uuid", "a1"}, {"sessionId", "s"}, {"message", {{"id", "m1"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", json::array({{{"type", "tool_use"}, {"id", "t1"}, {"name", "Read"}, {"input", {{"file_path", "/a"}}}}})}}}})
                                  + line({{"parentUuid", "a1"}, {"isSidechain", false}, {"type", "user"}, {"uuid", "u2"}, {"sessionId", "s"}, {"message", {{"role", "user"}, {"content", json::array({{{"type", "tool_result"}, {"tool_use_id", "t1"}, {"content", big}}})}}}})
                                  + line({{"parentUuid", "u2"}, {"isSidechain", false}, {"type", "system"}, {"subtype", "microcompact_boundary"}, {"uuid", "b1"}, {"sessionId", "s"}, {"content", "Context microcompacted"}, {"microcompactMetadata", {{"trigger", "auto"}, {"preTokens", 2000}, {"tokensSaved", 1000}, {"compactedToolIds", json::array({"t1"})}}}})
                                  + line({{"parentUuid", "b1"}, {"isSidechain", false}, {"type", "assistant"}, {"uuid", "a2"}, {"sessionId", "s"}, {"message", {{"id", "m2"}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", json::array({{{"type", "text"}, {"text", "Read."}}})}}}});
        auto t = load(bytes, "s.jsonl");
        QVERIFY(t);
        QCOMPARE(count(*t, Diagnostic::Severity::Warning), 0);
        const Block *result = nullptr;
        for (const auto &m : t->messages)
            for (const auto &b : m.blocks)
                if (b.type == BlockType::ToolResult)
                    result = &b;
        QVERIFY(result && result->cleared);
        QCOMPARE(result->text, big); // the file's text is still there
        auto whole = load(bytes, "s.jsonl", true);
        QVERIFY(tokens::totalEstimate(*t) + 500 < tokens::totalEstimate(*whole));
        const auto api = writeTranscript(*t, Format::Anthropic);
        QVERIFY(api.bytes.find(std::string(kClearedResult)) != std::string::npos);
        QVERIFY(api.bytes.find(big) == std::string::npos);
        QCOMPARE(writeTranscript(*t, Format::ClaudeCode).bytes, bytes); // lossless
    }

    void codexReplacementHistoryIsLive()
    {
        auto t = load(codexRollout(), "rollout-x.jsonl");
        QVERIFY(t);
        QCOMPARE(count(*t, Diagnostic::Severity::Warning), 0);
        const std::string live = liveText(*t);
        QVERIFY2(live.find("SUMMARY-TEXT") != std::string::npos, live.c_str());
        QVERIFY2(live.find("NEW-OUTPUT") != std::string::npos, live.c_str());
        QVERIFY2(live.find("OLD-OUTPUT") == std::string::npos, live.c_str());
        int summaries = 0;
        for (const auto &m : t->messages)
            summaries += m.isConversation() && m.kind == MessageKind::CompactSummary;
        QCOMPARE(summaries, 1);
        QCOMPARE(writeTranscript(*t, Format::Codex).bytes, codexRollout());
    }

    void codexExportsNumberEveryLine()
    {
        auto t = load(codexRollout(), "rollout-x.jsonl");
        for (const char *name : {"codex", "claude-code-compact", "trim-tools"}) {
            const auto *s = strategy::find(name);
            QVERIFY(s);
            strategy::Input in(*t);
            nlohmann::json p = nlohmann::json::object();
            for (const auto &spec : s->params())
                if (spec.name == "force")
                    p["force"] = true;
            if (std::string(name) == "trim-tools")
                p["keepLastToolRounds"] = 0;
            const auto r = strategy::run(*s, in, p);
            QVERIFY2(r.changed, (std::string(name) + ": " + r.note).c_str());
            const auto w = writeTranscript(r.materialize(*t), Format::Codex);
            QVERIFY(w.ok);
            const auto ord = ordinals(w.bytes);
            for (std::size_t i = 0; i < ord.size(); ++i)
                QVERIFY2(ord[i] == std::int64_t(i), (std::string(name) + ": line " + std::to_string(i + 1)
                                                     + " has ordinal " + std::to_string(ord[i]))
                                                        .c_str());
            auto back = load(w.bytes, "rollout-x.jsonl");
            QCOMPARE(count(*back, Diagnostic::Severity::Warning), 0);
            QVERIFY(validate(*back, Format::Codex).empty());
            // History stays history: the old output is never live again.
            QVERIFY(liveText(*back).find("OLD-OUTPUT") == std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestLiveContext)
#include "tst_livecontext.moc"
