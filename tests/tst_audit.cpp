// SPDX-License-Identifier: MIT
// The compaction audit (core/workflow/audit.h) and `contextlens-cli audit`: a Claude Code session
// written here with hand-computed kept and dropped facts, the recorded-shape Codex and Gemini CLI
// fixtures, the shared real samples, the strategy rows against strategy::run on the same
// pre-compaction transcript, and the CLI's text and JSON.
#include "core/io/loader.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/workflow/audit.h"
#include "core/workflow/composition.h"

#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace cl;

namespace {

composition::Options seedOptions()
{
    composition::Options o;
    o.estimator = tokens::Estimator::Seed;
    return o;
}

using strategy::Fact;

// One Claude Code line with the envelope every conversation line has.
std::string line(const json &fields)
{
    json o = {{"isSidechain", false}, {"userType", "external"}, {"cwd", "/w"}, {"sessionId", "s1"}, {"version", "2.1.0"}};
    o.update(fields);
    return o.dump() + "\n";
}

std::string user(const char *uuid, const char *parent, const json &content, int second)
{
    return line({{"type", "user"}, {"uuid", uuid}, {"parentUuid", parent ? json(parent) : json(nullptr)}, {"timestamp", "2025-12-01T09:00:" + std::string(second < 10 ? "0" : "") + std::to_string(second) + ".000Z"}, {"message", {{"role", "user"}, {"content", content}}}});
}

std::string assistant(const char *uuid, const char *parent, const json &content, int second)
{
    return line({{"type", "assistant"}, {"uuid", uuid}, {"parentUuid", parent}, {"timestamp", "2025-12-01T09:00:" + std::string(second < 10 ? "0" : "") + std::to_string(second) + ".000Z"}, {"message", {{"id", std::string("msg_") + uuid}, {"type", "message"}, {"role", "assistant"}, {"model", "claude-sonnet-4-5"}, {"content", content}}}});
}

json toolUse(const char *id, const char *name, const json &input)
{
    return json::array({{{"type", "tool_use"}, {"id", id}, {"name", name}, {"input", input}}});
}

json toolResult(const char *id, const char *text, bool error = false)
{
    return json::array({{{"type", "tool_result"}, {"tool_use_id", id}, {"content", text}, {"is_error", error}}});
}

json text(const char *s)
{
    return json::array({{{"type", "text"}, {"text", s}}});
}

// A long test log, so that compacting the history pays (distinct lines: no repetition discount).
std::string testLog()
{
    std::string s;
    for (int i = 0; i < 400; ++i)
        s += "tests/test_parser.py:" + std::to_string(i) + ": in test_case_" + std::to_string(i * 7919 % 1000) + "\n";
    return s + "1 failed";
}

const char *const kSummary = "This session is being continued from a previous conversation that ran out of context.\n"
                             "1. Primary Request and Intent: Fix the failing parser test in /src/a.py\n"
                             "2. Work so far: read /src/a.py and ran pytest tests/test_parser.py\n";

// Messages 0-9 the history, 10 the boundary, 11 the summary, 12-13 the turns after it.
// Facts of the history, in the order collectFacts visits them:
//   0 request "Fix the failing parser test in /src/a.py"  (message 0)   kept: in the summary
//   1 path    "/src/a.py"                                  (message 1)   kept: in the summary
//   2 path    "/src/b.py"                                  (message 3)   dropped
//   3 command "pytest tests/test_parser.py"                (message 5)   kept: in the summary
//   4 error   "FAILED tests/test_parser.py::test_empty - AssertionError" (message 6) dropped
//   5 request "Now also update the changelog"              (message 8)   dropped; the pending work
std::string claudeSession(bool recordPreTokens)
{
    json meta = {{"trigger", "manual"}};
    if (recordPreTokens)
        meta["preTokens"] = 48000;
    return user("u1", nullptr, "Fix the failing parser test in /src/a.py\nIt broke yesterday.", 1)
           + assistant("a1", "u1", toolUse("toolu_1", "Read", {{"file_path", "/src/a.py"}}), 2)
           + user("u2", "a1", toolResult("toolu_1", "def parse(text):\n    return text.split()\n"), 3)
           + assistant("a2", "u2", toolUse("toolu_2", "Edit", {{"file_path", "/src/b.py"}, {"old_string", "x = 1"}, {"new_string", "x = 2"}}), 4)
           + user("u3", "a2", toolResult("toolu_2", "The file /src/b.py has been updated."), 5)
           + assistant("a3", "u3", toolUse("toolu_3", "Bash", {{"command", "pytest tests/test_parser.py"}}), 6)
           + user("u4", "a3", toolResult("toolu_3", ("FAILED tests/test_parser.py::test_empty - AssertionError\n" + testLog()).c_str(), true), 7)
           + assistant("a4", "u4", text("The empty case still fails."), 8)
           + user("u5", "a4", "Now also update the changelog", 9)
           + assistant("a5", "u5", text("Will do after the fix."), 10)
           + line({{"type", "system"}, {"subtype", "compact_boundary"}, {"uuid", "b1"}, {"parentUuid", nullptr}, {"logicalParentUuid", "a5"}, {"timestamp", "2025-12-01T10:00:00.000Z"}, {"content", "Conversation compacted"}, {"level", "info"}, {"compactMetadata", meta}})
           + line({{"type", "user"}, {"uuid", "u6"}, {"parentUuid", "b1"}, {"isCompactSummary", true}, {"isVisibleInTranscriptOnly", true}, {"timestamp", "2025-12-01T10:00:30.000Z"}, {"message", {{"role", "user"}, {"content", kSummary}}}})
           + user("u7", "u6", "Thanks, continue with the fix", 40)
           + assistant("a6", "u7", text("Continuing."), 41);
}

std::shared_ptr<Transcript> load(const std::string &bytes, const char *name, bool wholeHistory = false)
{
    LoadOptions o;
    o.wholeHistory = wholeHistory;
    auto r = loadBytes(bytes, name, o);
    return r.transcript;
}

std::shared_ptr<Transcript> loadPath(const std::string &path)
{
    return loadFile(path).transcript;
}

std::string describe(const std::vector<Fact> &facts)
{
    std::string s;
    for (const auto &f : facts) {
        s.append("[").append(strategy::factKindName(f.kind)).append("] ").append(f.text).append(" @");
        for (const auto i : f.sources)
            s.append(" ").append(std::to_string(i));
        s.append("; ");
    }
    return s;
}

// How many facts of a compaction the text the agent kept holds byte for byte (the rule before
// strategy/factmatch.h): the summary, then the kept messages as audit.cpp's keptText joins them.
std::size_t keptVerbatim(const Transcript &t, const audit::Compaction &c)
{
    std::string text = c.summary;
    for (const std::size_t i : c.keptMessages)
        for (const Block &b : t.messages[i].blocks) {
            text += '\n' + b.text;
            if (b.type == BlockType::ToolUse && !b.input.is_null())
                text += '\n' + b.input.dump();
        }
    std::size_t n = 0;
    for (const auto *list : {&c.kept, &c.dropped})
        for (const Fact &f : *list)
            n += text.find(f.text) != std::string::npos;
    return n;
}

// The strategy rows are strategy::run's own figures on the transcript before the compaction.
void checkRowsAgainstRun(const Transcript &t, const audit::Compaction &c, const std::vector<std::string> &names)
{
    QCOMPARE(c.strategies.size(), names.size());
    const Transcript before = audit::transcriptBefore(t, c.boundary);
    strategy::Input in(before);
    for (std::size_t k = 0; k < names.size(); ++k) {
        const audit::StrategyRow &row = c.strategies[k];
        QCOMPARE(row.strategy, names[k]);
        QVERIFY2(row.error.empty(), row.error.c_str());
        const strategy::Strategy *s = strategy::find(names[k]);
        QVERIFY(s);
        json params = json::object();
        for (const auto &p : s->params())
            if (p.name == "force")
                params["force"] = true;
        strategy::RunOptions opt;
        opt.validate = false;
        const strategy::Result r = strategy::run(*s, in, params, opt);
        const std::string where = names[k] + " at message " + std::to_string(c.boundary);
        QVERIFY2(row.factRetention == r.stats.factRetention, where.c_str());
        QVERIFY2(row.factsKept == r.stats.factsKept && row.factsTotal == r.stats.factsTotal, where.c_str());
        QVERIFY2(row.tokensAfter == r.stats.tokensAfter && row.tokensBefore == r.stats.tokensBefore, where.c_str());
        QVERIFY2(row.changed == r.changed, where.c_str());
        // The same fact list as the agent's summary is judged on.
        QVERIFY2(row.factsTotal == c.factsTotal(), where.c_str());
    }
}

} // namespace

class TestAudit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void claudeCodeKeptAndDroppedFacts()
    {
        for (const bool whole : {false, true}) { // the loader keeps the history either way
            const auto t = load(claudeSession(true), "session.jsonl", whole);
            QVERIFY(t);
            QCOMPARE(t->format, Format::ClaudeCode);
            QCOMPARE(t->messages.size(), std::size_t(14));
            QCOMPARE(t->messages[10].kind, MessageKind::CompactBoundary);
            QCOMPARE(t->messages[3].id, std::string("a2"));
            QCOMPARE(t->messages[6].id, std::string("u4"));
            QCOMPARE(t->messages[8].id, std::string("u5"));

            const auto list = audit::auditCompactions(*t, audit::Options{std::vector<std::string>{}, {}, 1});
            QCOMPARE(list.size(), std::size_t(1));
            const audit::Compaction &c = list[0];
            QCOMPARE(c.boundary, std::size_t(10));
            QCOMPARE(c.from, std::size_t(0));
            QCOMPARE(c.replacedMessages, std::size_t(10));
            QCOMPARE(c.trigger, std::string("manual"));
            QCOMPARE(c.timestamp, std::string("2025-12-01T10:00:00.000Z"));
            QCOMPARE(c.summaryMessage, 11);
            QCOMPARE(c.summary, std::string(kSummary));
            QVERIFY(c.keptMessages.empty());
            QVERIFY(c.beforeRecorded);
            QCOMPARE(c.tokensBefore, std::int64_t(48000));
            QCOMPARE(c.tokensAfter, tokens::estimateMessage(t->messages[11]));
            QVERIFY(c.tokensAfter > 0);
            QVERIFY(c.strategies.empty());

            const std::string kept = describe(c.kept), dropped = describe(c.dropped);
            QCOMPARE(kept, std::string("[request] Fix the failing parser test in /src/a.py @ 0; [path] /src/a.py @ 1; "
                                       "[command] pytest tests/test_parser.py @ 5; "));
            QCOMPARE(dropped, std::string("[path] /src/b.py @ 3; [error] FAILED tests/test_parser.py::test_empty - AssertionError @ 6; "
                                          "[request] Now also update the changelog @ 8; "));
            QVERIFY(c.pending);
            QCOMPARE(c.pending->text, std::string("Now also update the changelog"));
            QCOMPARE(c.pending->sources, std::vector<std::size_t>{8});
            QVERIFY(!c.pendingKept);
            QCOMPARE(c.factRetention(), 0.5);
        }
    }

    void claudeCodeEstimateWithoutPreTokens()
    {
        const auto t = load(claudeSession(false), "session.jsonl");
        const auto list = audit::auditCompactions(*t, audit::Options{std::vector<std::string>{}, {}, 1});
        QCOMPARE(list.size(), std::size_t(1));
        const audit::Compaction &c = list[0];
        QVERIFY(!c.beforeRecorded);
        // The fixed part (Claude Code's default, no usage recorded) and every history message.
        std::int64_t want = tokens::defaultFixedTokens(Format::ClaudeCode);
        for (std::size_t i = 0; i < 10; ++i)
            want += tokens::estimateMessage(t->messages[i]);
        QCOMPARE(c.fixedTokens, tokens::defaultFixedTokens(Format::ClaudeCode));
        QCOMPARE(c.estimatedBefore, want);
        QCOMPARE(c.tokensBefore, want);
        // What `context --estimator seed` reports at the last message before the boundary (the audit's
        // estimates are still the seed estimator's; the calibrated count is left for them).
        QCOMPARE(c.tokensBefore, composition::compose(*t, 9, seedOptions()).total);
    }

    void transcriptBeforeIsTheReplacedHistory()
    {
        const auto t = load(claudeSession(true), "session.jsonl");
        std::vector<std::size_t> origin;
        const Transcript before = audit::transcriptBefore(*t, 10, &origin);
        QCOMPARE(before.messages.size(), std::size_t(10));
        QCOMPARE(origin, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
        for (const auto &m : before.messages)
            QVERIFY(m.isConversation());
        QCOMPARE(tokens::totalEstimate(before), composition::compose(*t, 9, seedOptions()).total - tokens::fixedPart(*t).tokens);
        // The loaded transcript still greys the history out.
        QCOMPARE(liveStart(*t), std::size_t(10));
    }

    void strategyRowsAreRunsOnTheSameHistory()
    {
        const auto t = load(claudeSession(true), "session.jsonl");
        const auto list = audit::auditCompactions(*t);
        QCOMPARE(list.size(), std::size_t(1));
        const auto &names = audit::defaultStrategies();
        QVERIFY(names.size() >= 10);
        for (const auto &n : names)
            QVERIFY2(strategy::find(n), n.c_str());
        QVERIFY(std::find(names.begin(), names.end(), "claude-code-compact") != names.end());
        QVERIFY(std::find(names.begin(), names.end(), "snip") == names.end()); // edits results only
        checkRowsAgainstRun(*t, list[0], names);
        // A forced summary strategy changed the history and kept some facts.
        const auto row = std::find_if(list[0].strategies.begin(), list[0].strategies.end(),
                                      [](const audit::StrategyRow &r) { return r.strategy == "claude-code-compact"; });
        QVERIFY2(row->changed, row->note.c_str());
        QCOMPARE(row->factsTotal, std::size_t(6));
        QVERIFY(row->tokensAfter < row->tokensBefore);

        // A caller-given list, in its order.
        const std::vector<std::string> mine = {"oldest", "codex"};
        const auto two = audit::auditCompactions(*t, audit::Options{mine, {}, 1});
        checkRowsAgainstRun(*t, two[0], mine);
    }

    // A summary that writes paths relative to the session's cwd ("/w"), a file by its basename and
    // a command without its `cd` keeps those facts; a basename two files share names neither.
    void summaryWithRelativePaths()
    {
        const std::string bytes = user("u1", nullptr, "Fix the Router", 1)
                                  + assistant("a1", "u1", toolUse("toolu_1", "Read", {{"file_path", "/w/lib/app/router.ex"}}), 2)
                                  + user("u2", "a1", toolResult("toolu_1", "defmodule App.Router do"), 3)
                                  + assistant("a2", "u2", toolUse("toolu_2", "Read", {{"file_path", "/w/lib/web/router.ex"}}), 4)
                                  + user("u3", "a2", toolResult("toolu_2", "defmodule Web.Router do"), 5)
                                  + assistant("a3", "u3", toolUse("toolu_3", "Edit", {{"file_path", "/w/lib/app/application.ex"}, {"old_string", "a"}, {"new_string", "b"}}), 6)
                                  + user("u4", "a3", toolResult("toolu_3", "The file has been updated."), 7)
                                  + assistant("a4", "u4", toolUse("toolu_4", "Bash", {{"command", "cd /w &&  mix test"}}), 8)
                                  + user("u5", "a4", toolResult("toolu_4", "3 tests, 0 failures"), 9)
                                  + line({{"type", "system"}, {"subtype", "compact_boundary"}, {"uuid", "b1"}, {"parentUuid", nullptr}, {"logicalParentUuid", "u5"}, {"timestamp", "2025-12-01T10:00:00.000Z"}, {"content", "Conversation compacted"}, {"compactMetadata", {{"trigger", "auto"}}}})
                                  + line({{"type", "user"}, {"uuid", "u6"}, {"parentUuid", "b1"}, {"isCompactSummary", true}, {"timestamp", "2025-12-01T10:00:30.000Z"}, {"message", {{"role", "user"}, {"content", "The user asked to fix the router.\nFiles: `lib/app/application.ex` (edited), ./lib/app/router.ex, router.ex.\nRan `mix test`: green."}}}});
        const auto t = load(bytes, "session.jsonl");
        QVERIFY(t);
        const auto list = audit::auditCompactions(*t, audit::Options{std::vector<std::string>{}, {}, 1});
        QCOMPARE(list.size(), std::size_t(1));
        const audit::Compaction &c = list[0];
        QCOMPARE(describe(c.kept), std::string("[request] Fix the Router @ 0; [path] /w/lib/app/router.ex @ 1; "
                                               "[path] /w/lib/app/application.ex @ 5; [command] cd /w &&  mix test @ 7; "));
        QCOMPARE(describe(c.dropped), std::string("[path] /w/lib/web/router.ex @ 3; "));
        QCOMPARE(keptVerbatim(*t, c), std::size_t(0));
        QVERIFY(c.kept.size() > keptVerbatim(*t, c));
    }

    // Claude Code keeps recent messages (compactMetadata.preservedMessages); the loader moves them
    // after the summary. Before the compaction they were in their place; the agent kept them.
    void claudeCodePreservedMessages()
    {
        const std::string bytes = user("u1", nullptr, "Fix the failing parser test in /src/a.py", 1)
                                  + assistant("a1", "u1", text("Looking."), 2)
                                  + user("u5", "a1", "Now also update the changelog", 3)
                                  + assistant("a5", "u5", text("Will do."), 4)
                                  + line({{"type", "system"}, {"subtype", "compact_boundary"}, {"uuid", "b1"}, {"parentUuid", nullptr}, {"logicalParentUuid", "a5"}, {"timestamp", "2025-12-01T10:00:00.000Z"}, {"content", "Conversation compacted"}, {"compactMetadata", {{"trigger", "auto"}, {"preTokens", 30000}, {"preservedMessages", {{"anchorUuid", "u6"}, {"uuids", {"u5", "a5"}}}}}}})
                                  + line({{"type", "user"}, {"uuid", "u6"}, {"parentUuid", "b1"}, {"isCompactSummary", true}, {"timestamp", "2025-12-01T10:00:30.000Z"}, {"message", {{"role", "user"}, {"content", "Summary: fixing the parser of /src/a.py"}}}})
                                  + user("u7", "u6", "go on", 40);
        const auto t = load(bytes, "session.jsonl");
        QVERIFY(t);
        // Loaded order: u1 a1 | boundary, summary, u5 a5 (moved), u7.
        QCOMPARE(t->messages.size(), std::size_t(7));
        QCOMPARE(t->messages[4].id, std::string("u5"));
        QCOMPARE(t->messages[5].id, std::string("a5"));
        std::vector<std::size_t> origin;
        const Transcript before = audit::transcriptBefore(*t, 2, &origin);
        QCOMPARE(origin, (std::vector<std::size_t>{0, 1, 4, 5}));
        const auto list = audit::auditCompactions(*t, audit::Options{std::vector<std::string>{}, {}, 1});
        QCOMPARE(list.size(), std::size_t(1));
        const audit::Compaction &c = list[0];
        QCOMPARE(c.boundary, std::size_t(2));
        QCOMPARE(c.trigger, std::string("auto"));
        QCOMPARE(c.summaryMessage, 3);
        QCOMPARE(c.keptMessages, (std::vector<std::size_t>{4, 5}));
        QCOMPARE(c.replacedMessages, std::size_t(4));
        QCOMPARE(c.tokensAfter, tokens::estimateMessage(t->messages[3]) + tokens::estimateMessage(t->messages[4])
                                    + tokens::estimateMessage(t->messages[5]));
        // The first request is not in the summary; the second is a message the agent kept.
        QCOMPARE(describe(c.kept), std::string("[request] Now also update the changelog @ 4; "));
        QCOMPARE(describe(c.dropped), std::string("[request] Fix the failing parser test in /src/a.py @ 0; "));
        QVERIFY(c.pending && c.pendingKept);
        QCOMPARE(c.pending->text, std::string("Now also update the changelog"));
    }

    // The recorded-shape Codex rollout of tests/data: the replacement history keeps the request and
    // holds the summary; the command is dropped.
    void codexCompaction()
    {
        const auto t = loadPath(CL_TEST_DATA_DIR "/codex/live-compacted.jsonl");
        QVERIFY(t);
        QCOMPARE(t->messages[5].kind, MessageKind::CompactBoundary);
        const std::vector<std::string> names = {"codex", "middle"};
        const auto list = audit::auditCompactions(*t, audit::Options{names, {}, 1});
        QCOMPARE(list.size(), std::size_t(1));
        const audit::Compaction &c = list[0];
        QCOMPARE(c.boundary, std::size_t(5));
        QCOMPARE(c.from, std::size_t(0));
        QCOMPARE(c.replacedMessages, std::size_t(4));
        QCOMPARE(c.trigger, std::string());
        QCOMPARE(c.timestamp, std::string("2026-01-01T00:00:05.000Z"));
        QCOMPARE(c.summaryMessage, 7);
        QCOMPARE(c.summary, std::string("SUMMARY-TEXT a.txt exists"));
        QCOMPARE(c.keptMessages, std::vector<std::size_t>{6});
        QVERIFY(!c.beforeRecorded);
        QCOMPARE(c.tokensBefore, composition::compose(*t, 4).total);
        QCOMPARE(c.tokensAfter, tokens::estimateMessage(t->messages[6]) + tokens::estimateMessage(t->messages[7]));
        QCOMPARE(describe(c.kept), std::string("[request] make a.txt @ 1; "));
        QCOMPARE(describe(c.dropped), std::string("[command] touch a.txt @ 2; "));
        QVERIFY(c.pending && c.pendingKept);
        checkRowsAgainstRun(*t, c, names);
    }

    // The recorded-shape Gemini CLI session of tests/data: a compression ($set of messages with new
    // ids) whose state snapshot is the summary; "ls" is too short to be a fact.
    void geminiCompression()
    {
        const auto t = loadPath(CL_TEST_DATA_DIR "/geminicli/live-compressed.jsonl");
        QVERIFY(t);
        const std::vector<std::string> names = {"gemini-cli"};
        const auto list = audit::auditCompactions(*t, audit::Options{names, {}, 1});
        QCOMPARE(list.size(), std::size_t(1));
        const audit::Compaction &c = list[0];
        QCOMPARE(c.boundary, std::size_t(11));
        QCOMPARE(t->messages[13].id, std::string("s1"));
        QCOMPARE(c.summaryMessage, 13);
        QCOMPARE(c.summary, std::string("<state_snapshot>the user listed files; two exist</state_snapshot>"));
        QCOMPARE(c.keptMessages, (std::vector<std::size_t>{12, 14, 15, 16, 17}));
        QCOMPARE(c.replacedMessages, std::size_t(7)); // ctx, u1, g1, g1_response, u2, g2, u3
        std::int64_t after = 0;
        for (std::size_t i = 12; i <= 17; ++i)
            after += tokens::estimateMessage(t->messages[i]);
        QCOMPARE(c.tokensAfter, after);
        QCOMPARE(c.tokensBefore, composition::compose(*t, 10).total);
        QCOMPARE(describe(c.kept), std::string("[request] <session_context>setup</session_context> @ 4; [request] count the lines of a.txt @ 10; "));
        QCOMPARE(describe(c.dropped), std::string("[request] list the files @ 5; "));
        QVERIFY(c.pending && c.pendingKept);
        QCOMPARE(c.pending->text, std::string("count the lines of a.txt"));
        checkRowsAgainstRun(*t, c, names);
    }

    void realSamples()
    {
        CL_REQUIRE_SAMPLES();
        const audit::Options noRows{std::vector<std::string>{}, {}, 1};
        {
            // One compact_boundary on the active branch (line 21: auto, preTokens 120000), its summary
            // on line 22; every conversation line before it is a sidechain, so nothing was replaced.
            const auto t = loadPath(CL_SAMPLES_DIR "/claude-code/fixture-compaction.jsonl");
            QVERIFY(t);
            const auto list = audit::auditCompactions(*t, noRows);
            QCOMPARE(list.size(), std::size_t(1));
            const audit::Compaction &c = list[0];
            QCOMPARE(t->messages[c.boundary].line, std::uint32_t(21));
            QCOMPARE(c.trigger, std::string("auto"));
            QVERIFY(c.beforeRecorded);
            QCOMPARE(c.tokensBefore, std::int64_t(120000));
            QCOMPARE(c.timestamp, std::string("2025-12-16T00:00:07.000Z"));
            QCOMPARE(t->messages[std::size_t(c.summaryMessage)].line, std::uint32_t(22));
            QCOMPARE(c.summary, std::string("Summary of prior context."));
            QCOMPARE(c.replacedMessages, std::size_t(0));
            QCOMPARE(c.factsTotal(), std::size_t(0));
            QVERIFY(audit::auditCompactions(*t)[0].strategies.empty()); // nothing to run them on
        }
        {
            // Six compacted lines (26, 47, 69, 81, 89, 111); no tokens recorded; the first has an empty
            // message and one kept request, the others a summary request among their message items.
            const auto t = loadPath(CL_SAMPLES_DIR "/codex/fixture-rollout.jsonl");
            QVERIFY(t);
            const auto list = audit::auditCompactions(*t, noRows);
            QCOMPARE(list.size(), std::size_t(6));
            const std::uint32_t lines[] = {26, 47, 69, 81, 89, 111};
            const std::size_t kept[] = {1, 6, 19, 25, 52, 11}; // message items of the replacement history, the summary aside
            for (std::size_t k = 0; k < list.size(); ++k) {
                const audit::Compaction &c = list[k];
                QCOMPARE(t->messages[c.boundary].line, lines[k]);
                QVERIFY(!c.beforeRecorded);
                QCOMPARE(c.tokensBefore, composition::compose(*t, c.boundary - 1, seedOptions()).total);
                QCOMPARE(c.keptMessages.size(), kept[k]);
                QCOMPARE(c.from, k ? list[k - 1].boundary + 1 : std::size_t(0));
                // The summary request's text blocks (each trimmed in the sample), or nothing.
                QVERIFY2(k ? c.summary.rfind("[trimmed for fixture]", 0) == 0 : c.summary.empty(), c.summary.c_str());
                QCOMPARE(c.summaryMessage >= 0, k > 0);
            }
            QCOMPARE(list[0].timestamp, std::string("2026-08-03T10:48:56.000Z"));
            // The first compaction's history has two facts ("List the files" and the ls call); the
            // replacement history kept a trimmed request instead, so both were dropped.
            QCOMPARE(list[0].factsTotal(), std::size_t(2));
            QCOMPARE(list[0].kept.size(), std::size_t(0));
            // Facts are matched as a summary writes them: never fewer than a byte-for-byte search finds.
            for (const audit::Compaction &c : list)
                QVERIFY(c.kept.size() >= keptVerbatim(*t, c));
            const auto rows = audit::auditCompactions(*t);
            QCOMPARE(rows.size(), std::size_t(6));
            for (const auto &c : rows)
                checkRowsAgainstRun(*t, c, audit::defaultStrategies());
        }
        // The Gemini CLI samples record no compression.
        for (const char *name : {"/gemini/fixture-session.jsonl", "/gemini/fixture-legacy.json"}) {
            const auto t = loadPath(std::string(CL_SAMPLES_DIR) + name);
            QVERIFY(t && !t->messages.empty());
            QVERIFY(audit::auditCompactions(*t, noRows).empty());
        }
    }

    void cliTextAndJson()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("session.jsonl")).toStdString();
        test::writeFile(path, claudeSession(true));
        const auto t = loadPath(path);
        const std::int64_t after = tokens::estimateMessage(t->messages[11]);
        QVERIFY(after > 0 && after < 1000); // printed without a thousands separator

        auto r = test::runCli({"audit", path, "--strategies", "none"});
        QCOMPARE(r.code, 0);
        const std::string first = "Compaction 1 at message 11 (manual, 2025-12-01T10:00:00.000Z): 48,000 \u2192 " + std::to_string(after)
                                  + " tokens (recorded); facts kept 3/6; dropped: [path] /src/b.py, [error] FAILED "
                                    "tests/test_parser.py::test_empty - AssertionError, [request] Now also update the changelog\n";
        QVERIFY2(r.out.rfind(first, 0) == 0, r.out.c_str());
        QVERIFY2(r.out.find("  pending work: [request] Now also update the changelog (dropped)\n") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("  summary (message 12): \"This session is being continued") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("strategy") == std::string::npos, r.out.c_str());

        r = test::runCli({"audit", path, "--strategies", "oldest,claude-code-compact"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("\n  oldest ") != std::string::npos && r.out.find("\n  claude-code-compact ") != std::string::npos, r.out.c_str());

        r = test::runCli({"audit", path, "--strategies", "claude-code-compact", "--json"});
        QCOMPARE(r.code, 0);
        const json j = json::parse(r.out);
        QCOMPARE(j["format"].get<std::string>(), std::string("claude-code"));
        QCOMPARE(j["compactions"].size(), std::size_t(1));
        const json &c = j["compactions"][0];
        QCOMPARE(c["message"].get<int>(), 11);
        QCOMPARE(c["trigger"].get<std::string>(), std::string("manual"));
        QCOMPARE(c["tokensBefore"].get<std::int64_t>(), std::int64_t(48000));
        QCOMPARE(c["tokensBeforeSource"].get<std::string>(), std::string("recorded"));
        QCOMPARE(c["tokensAfter"].get<std::int64_t>(), after);
        QCOMPARE(c["replaced"]["fromMessage"].get<int>(), 1);
        QCOMPARE(c["replaced"]["toMessage"].get<int>(), 10);
        QCOMPARE(c["factsKept"].get<int>(), 3);
        QCOMPARE(c["factsTotal"].get<int>(), 6);
        QVERIFY2(c["dropped"][0] == (json{{"kind", "path"}, {"text", "/src/b.py"}, {"messages", {4}}}), c["dropped"].dump().c_str());
        QCOMPARE(c["pending"]["text"].get<std::string>(), std::string("Now also update the changelog"));
        QCOMPARE(c["pendingKept"].get<bool>(), false);
        const auto engine = audit::auditCompactions(*t, audit::Options{std::vector<std::string>{"claude-code-compact"}, {}, 1});
        QCOMPARE(c["strategies"].size(), std::size_t(1));
        QCOMPARE(c["strategies"][0]["strategy"].get<std::string>(), std::string("claude-code-compact"));
        QCOMPARE(c["strategies"][0]["factRetention"].get<double>(), engine[0].strategies[0].factRetention);
        QCOMPARE(c["strategies"][0]["tokensAfter"].get<std::int64_t>(), engine[0].strategies[0].tokensAfter);

        QCOMPARE(test::runCli({"audit", path, "--strategies", "no-such"}).code, 2);
        QCOMPARE(test::runCli({"audit"}).code, 2);
        r = test::runCli({"help", "audit"});
        QVERIFY(r.out.find("--strategies") != std::string::npos);
        r = test::runCli({"help", "--json"});
        const json h = json::parse(r.out);
        QVERIFY(std::find(h["commands"].begin(), h["commands"].end(), json("audit")) != h["commands"].end());
    }

    void sessionWithoutCompaction()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("plain.jsonl")).toStdString();
        const std::string bytes = claudeSession(true);
        std::size_t cut = 0;
        for (int n = 0; n < 10; ++n)
            cut = bytes.find('\n', cut) + 1;
        test::writeFile(path, bytes.substr(0, cut)); // the ten lines before the boundary
        QVERIFY(audit::auditCompactions(*loadPath(path)).empty());
        auto r = test::runCli({"audit", path});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.out, path + ": no compaction in this session (claude-code)\n");
        r = test::runCli({"audit", path, "--json"});
        QCOMPARE(r.code, 0);
        QVERIFY(json::parse(r.out)["compactions"].empty());
    }
};

QTEST_GUILESS_MAIN(TestAudit)
#include "tst_audit.moc"
