// SPDX-License-Identifier: MIT
// Qwen Code sessions: a session Qwen Code 0.24.4 recorded against the fake model server, with its own
// compression (tests/data/qwen-code/compressed.jsonl, the agent's texts replaced), and a hand-made
// one with a rewound branch, a response written in two fragments and a broken line
// (branched.jsonl). Loading, the byte-identical round trip, edits written as a compression record,
// conversion, the agent's compression policy, and the session browser's scan.
#include "core/formats/formats.h"
#include "core/generator/generator.h"
#include "core/io/export.h"
#include "core/io/loader.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/sessions/sessions.h"
#include "core/strategies/qwen_code.h"
#include "core/strategies/registry.h"
#include "core/strategy/editor.h"
#include "core/tokens/contextfigure.h"
#include "core/util/json.h"

#include "strategy_fixture.h"
#include "test_support.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>

using namespace cl;

namespace {

std::string fixture(const char *name)
{
    return test::readFile(std::string(CL_TEST_DATA_DIR) + "/qwen-code/" + name);
}

std::shared_ptr<Transcript> load(const std::string &bytes, std::optional<Format> format = std::nullopt)
{
    LoadOptions o;
    o.format = format;
    return loadBytes(bytes, "session.jsonl", o).transcript;
}

std::size_t warnings(const Transcript &t)
{
    std::size_t n = 0;
    for (const auto &d : t.diagnostics)
        n += d.severity != Diagnostic::Severity::Info;
    return n;
}

std::vector<const Message *> live(const Transcript &t)
{
    std::vector<const Message *> out;
    for (const auto &m : t.messages)
        if (m.isConversation())
            out.push_back(&m);
    return out;
}

std::vector<std::string> lines(const std::string &bytes)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < bytes.size()) {
        const std::size_t nl = bytes.find('\n', pos);
        out.push_back(bytes.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos));
        pos = nl == std::string::npos ? bytes.size() : nl + 1;
    }
    return out;
}

} // namespace

class TestQwenCode : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void detectsAndLoadsTheAgentsCompression();
    void unchangedRoundTripIsByteIdentical();
    void followsTheChainTheAgentResumes();
    void editsBecomeACompressionRecord();
    void convertsFromEveryFormat();
    void compressionPolicy();
    void compressionRestoresFiles();
    void clearsToolOutputLikeQwenCode();
    void sessionBrowserFindsQwenSessions();
};

void TestQwenCode::detectsAndLoadsTheAgentsCompression()
{
    const std::string bytes = fixture("compressed.jsonl");
    QCOMPARE(detectFormat(bytes, "x.jsonl"), Format::QwenCode);
    auto t = load(bytes);
    QVERIFY(t);
    QCOMPARE(t->format, Format::QwenCode);
    QCOMPARE(warnings(*t), std::size_t(0));
    QCOMPARE(t->records.size(), std::size_t(11));
    QCOMPARE(json::str(t->header, "cwd"), std::string("/home/user/project"));
    QCOMPARE(json::str(t->header, "version"), std::string("0.24.4"));
    QCOMPARE(json::str(t->header, "model"), std::string("qwen3-coder-plus"));

    // One compaction: the boundary, then the compressed history the agent sends from then on.
    std::int32_t boundary = -1;
    for (std::size_t i = 0; i < t->messages.size(); ++i)
        if (t->messages[i].kind == MessageKind::CompactBoundary)
            boundary = std::int32_t(i);
    QVERIFY(boundary > 0);
    const Message &b = t->messages[std::size_t(boundary)];
    QCOMPARE(b.meta.value("originalTokenCount", 0), 900069);
    QCOMPARE(b.meta.value("newTokenCount", 0), 897600);
    for (std::int32_t i = 0; i < boundary; ++i)
        QVERIFY(t->messages[std::size_t(i)].history || !t->messages[std::size_t(i)].isTurn());
    const auto now = live(*t);
    QCOMPARE(now.size(), std::size_t(4)); // snapshot, acknowledgement + call, its result, the answer
    QCOMPARE(now[0]->kind, MessageKind::CompactSummary);
    QVERIFY(now[0]->plainText().find("<state_snapshot>") != std::string::npos);
    QCOMPARE(now[1]->role, Role::Assistant);
    QVERIFY(now[1]->hasToolUse());
    QCOMPARE(now[2]->role, Role::Tool); // a user content of function responses, as a tool_result record
    QVERIFY(now[2]->hasToolResult());
    QCOMPARE(now[2]->blocks.front().pairMessage, std::int32_t(now[1] - t->messages.data()));
    QCOMPARE(now[3]->plainText(), std::string("Done."));
    // Usage: the prompt count includes the cached part; the window is the one the agent states.
    QVERIFY(now[3]->usage);
    QCOMPARE(now[3]->usage->contextTokens(), std::int64_t(16983));
    QCOMPARE(now[3]->usage->contextWindow, std::int64_t(1000000));
    // The live context is the request the agent sent after compressing, measured.
    const auto fig = tokens::contextFigure(*t);
    QCOMPARE(fig.basis, tokens::ContextFigure::Basis::Measured);
    QVERIFY(fig.total >= 16983 && fig.total < 17100);
    QVERIFY(validate(*t, Format::QwenCode).empty());
}

void TestQwenCode::unchangedRoundTripIsByteIdentical()
{
    for (const char *name : {"compressed.jsonl", "branched.jsonl"}) {
        const std::string bytes = fixture(name);
        auto t = load(bytes);
        QVERIFY(t);
        const WriteResult w = writeTranscript(*t, Format::QwenCode);
        QVERIFY2(w.ok, w.error.c_str());
        QVERIFY2(w.bytes == bytes, name);
        // The format's own writer, called directly, too.
        const WriteResult direct = formats::inMemory(formats::writeQwenCode, *t);
        QVERIFY(direct.bytes == bytes);
    }
}

void TestQwenCode::followsTheChainTheAgentResumes()
{
    auto t = load(fixture("branched.jsonl"));
    QVERIFY(t);
    QCOMPARE(t->format, Format::QwenCode);
    // The broken line is reported by number and kept as a raw record.
    bool broken = false;
    for (const auto &d : t->diagnostics)
        broken = broken || (d.line == 10 && d.message.find("invalid JSON") != std::string::npos);
    QVERIFY(broken);
    QCOMPARE(t->records.size(), std::size_t(12));
    QVERIFY(!t->records[9].parsed);
    // The rewound question and its answer are off the chain; the later branch is on it.
    QCOMPARE(t->offBranchMessages, std::size_t(2));
    std::vector<std::string> ids;
    for (const auto *m : live(*t))
        ids.push_back(m->id);
    QCOMPARE(ids, (std::vector<std::string>{"u1", "a1", "t1", "a2", "u3", "a4"}));
    // The two fragments of a4 are one response with both texts and the later usage.
    const Message *a4 = live(*t).back();
    QCOMPARE(a4->blocks.size(), std::size_t(2));
    QCOMPARE(a4->plainText(), std::string("First part.\nSecond part."));
    QCOMPARE(a4->records.size(), std::size_t(2));
    QVERIFY(a4->usage);
    QCOMPARE(a4->usage->inputTokens, std::int64_t(200));
    QCOMPARE(a4->usage->cacheReadTokens, std::int64_t(12000));
    QCOMPARE(a4->usage->contextWindow, std::int64_t(131072));
    // The read call and its result are paired; the telemetry is an event, the artifact metadata.
    QCOMPARE(live(*t)[1]->blocks.front().toolName, std::string("read_file"));
    QVERIFY(live(*t)[2]->blocks.front().pairMessage >= 0);
    std::size_t events = 0, meta = 0;
    for (const auto &m : t->messages) {
        events += m.kind == MessageKind::Event;
        meta += m.kind == MessageKind::Meta;
    }
    QCOMPARE(events, std::size_t(1));
    QCOMPARE(meta, std::size_t(1));
}

void TestQwenCode::editsBecomeACompressionRecord()
{
    const std::string bytes = fixture("branched.jsonl");
    auto t = load(bytes);
    QVERIFY(t);
    // An edit of the read result (what a strategy or the editor does): 3 000 characters instead of 17.
    const std::string longer(3000, 'z');
    Transcript edited = *t;
    for (auto &m : edited.messages)
        for (auto &b : m.blocks)
            if (b.type == BlockType::ToolResult) {
                b.text = longer;
                m.edited = true;
                m.cache.tokenEstimate = -1;
            }
    const WriteResult w = writeTranscript(edited, Format::QwenCode);
    QVERIFY2(w.ok, w.error.c_str());
    // Every original line stays byte for byte; one line is added.
    QVERIFY(w.bytes.compare(0, bytes.size(), bytes) == 0);
    const auto added = lines(w.bytes.substr(bytes.size()));
    QCOMPARE(added.size(), std::size_t(1));
    nlohmann::json rec;
    std::string err;
    QVERIFY(json::parse(added[0], rec, err) != json::ParseStatus::Failed);
    QCOMPARE(json::str(rec, "type"), std::string("system"));
    QCOMPARE(json::str(rec, "subtype"), std::string("chat_compression"));
    QCOMPARE(json::str(rec, "parentUuid"), std::string("s1")); // the chain's last record, not the artifact
    QCOMPARE(json::str(rec, "sessionId"), json::str(t->header, "sessionId"));
    const nlohmann::json &payload = rec["systemPayload"];
    QCOMPARE(payload["compressedHistory"].size(), std::size_t(6));
    QCOMPARE(payload["info"]["compressionStatus"].get<int>(), 1);
    QCOMPARE(payload["completedToolCallIds"], nlohmann::json::array());

    // Reloaded, the earlier messages are history and the live context is the edited one.
    auto back = load(w.bytes);
    QVERIFY(back);
    QCOMPARE(warnings(*back), warnings(*t)); // the fixture's broken line, nothing more
    const auto was = live(edited), now = live(*back);
    QCOMPARE(now.size(), was.size());
    for (std::size_t k = 0; k < now.size(); ++k) {
        QCOMPARE(now[k]->role, was[k]->role);
        QCOMPARE(now[k]->plainText(), was[k]->plainText());
        QCOMPARE(now[k]->blocks.size(), was[k]->blocks.size());
    }
    QCOMPARE(now[2]->blocks.front().text, longer);
    QVERIFY(validate(*back, Format::QwenCode).empty());
    // The counts it states: the file's live context before, the edited one after (Qwen Code takes
    // newTokenCount as its prompt size when it resumes).
    QCOMPARE(payload["info"]["originalTokenCount"].get<std::int64_t>(), tokens::contextFigure(*t).total);
    QCOMPARE(payload["info"]["newTokenCount"].get<std::int64_t>(), tokens::contextFigure(edited).total);
    QVERIFY(tokens::contextFigure(edited).total > tokens::contextFigure(*t).total + 500);

    // The export writes the same (no compaction style of its own to choose).
    const WriteResult ex = exportTranscript(edited, Format::QwenCode);
    QVERIFY(ex.ok);
    QCOMPARE(lines(ex.bytes).size(), lines(w.bytes).size());
}

void TestQwenCode::convertsFromEveryFormat()
{
    for (const Format from : allFormats()) {
        if (from == Format::QwenCode)
            continue;
        gen::Options g;
        g.format = from;
        g.messages = 40;
        g.seed = 7;
        std::string error;
        const std::string bytes = gen::generate(g, nullptr, &error);
        QVERIFY2(!bytes.empty(), error.c_str());
        auto t = load(bytes, from);
        QVERIFY(t);
        const WriteResult w = writeTranscript(*t, Format::QwenCode);
        QVERIFY2(w.ok, w.error.c_str());
        auto back = load(w.bytes);
        QVERIFY(back);
        QCOMPARE(back->format, Format::QwenCode);
        QCOMPARE(warnings(*back), std::size_t(0));
        const auto v = validate(*back, Format::QwenCode);
        const std::string why = v.empty() ? std::string() : std::string(formatName(from)) + ": " + v.front().reason;
        QVERIFY2(v.empty(), why.c_str());
        // Every call and result survives, with its id.
        std::size_t callsBefore = 0, callsAfter = 0;
        for (const auto *m : live(*t))
            for (const auto &b : m->blocks)
                callsBefore += b.type == BlockType::ToolUse;
        for (const auto *m : live(*back))
            for (const auto &b : m->blocks)
                callsAfter += b.type == BlockType::ToolUse;
        QCOMPARE(callsAfter, callsBefore);
        // One uuid chain from the first record to the last.
        const auto ls = lines(w.bytes);
        std::string parent;
        for (const auto &l : ls) {
            nlohmann::json o;
            std::string err;
            QVERIFY(json::parse(l, o, err) != json::ParseStatus::Failed);
            QCOMPARE(json::str(o, "parentUuid"), parent);
            parent = json::str(o, "uuid");
        }
    }
}

void TestQwenCode::compressionPolicy()
{
    // Qwen Code's thresholds: 85 % of the window, capped at window - 20 000 - 13 000.
    QCOMPARE(strategy::qwenCodeCompressAt(1000000), std::int64_t(850000));
    QCOMPARE(strategy::qwenCodeCompressAt(128000), std::int64_t(95000));
    QCOMPARE(strategy::qwenCodeCompressAt(20000), std::int64_t(17000)); // a window below the reserve: the share
    const strategy::Strategy *s = strategy::find("qwen-code");
    QVERIFY(s);
    QCOMPARE(s->follows(), std::string_view("Qwen Code"));

    gen::Options g;
    g.format = Format::QwenCode;
    g.messages = 80;
    g.seed = 3;
    auto t = load(gen::generate(g));
    QVERIFY(t);
    strategy::Input below(*t);
    below.options.contextWindow = 10000000;
    QVERIFY(!strategy::run(*s, below, {}).changed);

    strategy::Input in(*t);
    in.options.contextWindow = 128000;
    const auto r = strategy::run(*s, in, {{"force", true}});
    QVERIFY2(r.changed, r.note.c_str());
    const Transcript out = r.materialize(*t);
    const auto now = live(out);
    QVERIFY(now.size() >= 2);
    QCOMPARE(now[0]->kind, MessageKind::CompactSummary);
    QCOMPARE(now[1]->role, Role::Assistant);
    // The files it brings back are the latest read, written or edited ones: at most five.
    QVERIFY(r.extra.contains("restoredFiles"));
    QVERIFY(r.extra["restoredFiles"].size() <= 5);
    if (!r.extra["restoredFiles"].empty()) {
        QCOMPARE(now.size(), std::size_t(3));
        QVERIFY(now[2]->plainText().find(r.extra["restoredFiles"][0]["path"].get<std::string>()) != std::string::npos);
    }
    QVERIFY(r.stats.tokensAfter < r.stats.tokensBefore);
    // Written back, Qwen Code would resume from the compression record it ends with.
    const WriteResult w = writeTranscript(out, Format::QwenCode);
    QVERIFY(w.ok);
    auto back = load(w.bytes);
    QVERIFY(back);
    QCOMPARE(live(*back).size(), now.size());
    QCOMPARE(live(*back)[0]->kind, MessageKind::CompactSummary);
}

// The files it brings back, newest first: an edited file by path (its content is not in the
// session), a written one with what was written, a read one with what was read.
void TestQwenCode::compressionRestoresFiles()
{
    using namespace test::peerfix;
    Transcript t = make(Format::QwenCode, {text(Role::User, "Tidy the three files. " + std::string(4000, 'x')),
                                           call("c1", "read_file", {{"file_path", "/p/a.py"}}),
                                           result("c1", "print('content of a')"),
                                           call("c2", "write_file", {{"file_path", "/p/b.py"}, {"content", "B = 'written body'"}}),
                                           result("c2", "Successfully wrote /p/b.py"),
                                           call("c3", "edit", {{"file_path", "/p/c.py"}, {"old_string", "x"}, {"new_string", "y"}}),
                                           result("c3", "Edited /p/c.py"),
                                           text(Role::Assistant, "Done: all three tidied. " + std::string(4000, 'y'))});
    strategy::Input in(t, window(128000));
    const auto r = runNamed("qwen-code", in, {{"force", true}});
    QVERIFY2(r.changed, r.note.c_str());
    const auto files = r.extra["restoredFiles"];
    QCOMPARE(files.size(), std::size_t(3));
    QCOMPARE(files[0]["path"].get<std::string>(), std::string("/p/c.py"));
    QCOMPARE(files[0]["embedded"].get<bool>(), false);
    QCOMPARE(files[1]["path"].get<std::string>(), std::string("/p/b.py"));
    QCOMPARE(files[1]["embedded"].get<bool>(), true);
    QCOMPARE(files[2]["path"].get<std::string>(), std::string("/p/a.py"));
    const auto out = resultMessages(r, t);
    QCOMPARE(out.size(), std::size_t(3)); // snapshot, acknowledgement, restored files
    QCOMPARE(out[0]->kind, MessageKind::CompactSummary);
    const std::string restored = out[2]->plainText();
    QVERIFY(restored.find("- /p/c.py") != std::string::npos);
    QVERIFY(restored.find("B = 'written body'") != std::string::npos);
    QVERIFY(restored.find("print('content of a')") != std::string::npos);
    // maxFiles 1: only the newest, and with a 1-token budget per file, only by path.
    const auto one = runNamed("qwen-code", in, {{"force", true}, {"maxFiles", 1}});
    QCOMPARE(one.extra["restoredFiles"].size(), std::size_t(1));
    const auto small = runNamed("qwen-code", in, {{"force", true}, {"maxFileTokens", 1}});
    for (const auto &f : small.extra["restoredFiles"])
        QCOMPARE(f["embedded"].get<bool>(), false);
}

// Eight shell results of 100 000 characters: 800 000 > 500 000. Keeping the latest 5, the 3 oldest
// go (500 000 left: the watermark of 250 000 is not reached, nothing else may go). Keeping 1, they
// go oldest first until 250 000 or less is left: 6 (200 000 left). Idle: all but the latest 5,
// whatever the size; below the size trigger, nothing.
void TestQwenCode::clearsToolOutputLikeQwenCode()
{
    using namespace test::peerfix;
    std::vector<Message> ms{text(Role::User, "Run the eight checks.")};
    for (int k = 0; k < 8; ++k) {
        const std::string id = "s" + std::to_string(k);
        ms.push_back(call(id, "run_shell_command", {{"command", "check " + std::to_string(k)}}));
        ms.push_back(result(id, std::string(100000, char('a' + k))));
    }
    ms.push_back(text(Role::Assistant, "All eight ran."));
    const Transcript t = make(Format::QwenCode, ms);
    strategy::Input in(t, window(1000000));
    auto clearedCount = [&](const strategy::Result &r) {
        std::size_t n = 0;
        for (const auto &f : r.fates)
            n += f.fate == strategy::Fate::Microcompacted;
        return n;
    };
    const auto five = runNamed("qwen-code-clear-tool-results", in);
    QVERIFY2(five.changed, five.note.c_str());
    QCOMPARE(clearedCount(five), std::size_t(3));
    QCOMPARE(five.extra["toolOutputChars"]["after"].get<std::size_t>(), std::size_t(500000));
    QVERIFY(five.fates[2].fate == strategy::Fate::Microcompacted);  // the oldest result
    QVERIFY(five.fates[16].fate != strategy::Fate::Microcompacted); // the latest
    const auto one = runNamed("qwen-code-clear-tool-results", in, {{"keepRecent", 1}});
    QCOMPARE(clearedCount(one), std::size_t(6));
    QCOMPARE(one.extra["toolOutputChars"]["after"].get<std::size_t>(), std::size_t(200000));
    const auto idle = runNamed("qwen-code-clear-tool-results", in, {{"trigger", "idle"}, {"totalChars", 10000000}});
    QCOMPARE(clearedCount(idle), std::size_t(3));
    const auto below = runNamed("qwen-code-clear-tool-results", in, {{"totalChars", 900000}});
    QVERIFY(!below.changed);
    QVERIFY(below.note.find("below trigger") != std::string::npos);
}

void TestQwenCode::sessionBrowserFindsQwenSessions()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string home = dir.path().toStdString();
    const std::string folder = home + "/.qwen/projects/-home-user-project/chats";
    std::filesystem::create_directories(folder);
    test::writeFile(folder + "/30b3c95a-54f0-43ba-9559-aaaaecfec881.jsonl", fixture("compressed.jsonl"));
    sessions::ScanOptions o;
    o.home = home;
    const auto r = sessions::scan(o);
    QCOMPARE(r.sessions.size(), std::size_t(1));
    const sessions::Session &s = r.sessions.front();
    QCOMPARE(s.agent, sessions::Agent::QwenCode);
    QCOMPARE(s.format, Format::QwenCode);
    QCOMPARE(s.project, std::string("/home/user/project"));
    QCOMPARE(s.sessionId, std::string("30b3c95a-54f0-43ba-9559-aaaaecfec881"));
    QCOMPARE(s.compactions, std::size_t(1));
    QCOMPARE(s.model, std::string("qwen3-coder-plus"));
    QVERIFY(s.firstRequest.find("Create a.txt") != std::string::npos);
    sessions::Agent a;
    QVERIFY(sessions::agentFromName("qwen-code", a));
    QCOMPARE(a, sessions::Agent::QwenCode);
}

QTEST_GUILESS_MAIN(TestQwenCode)
#include "tst_qwencode.moc"
