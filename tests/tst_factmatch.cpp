// SPDX-License-Identifier: MIT
// Fact matching (core/strategy/factmatch.h): paths as a summary writes them (relative to the working
// directory, "./x", a unique basename, on component boundaries), commands without their `cd`,
// requests and errors in any case; the session's working directory per format; the strategy metrics
// and the compaction audit counting with it, on hand-made facts, generated sessions and the shared
// real samples.
#include "core/analysis/analysis.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/editor.h"
#include "core/strategy/factmatch.h"
#include "core/strategy/strategy.h"
#include "core/workflow/audit.h"

#include "test_support.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace cl;
using strategy::Fact;
using strategy::FactMatcher;
using strategy::FactText;

namespace {

Fact fact(Fact::Kind kind, std::string text)
{
    return Fact{std::move(text), kind, {0}};
}

Fact path(std::string text)
{
    return fact(Fact::Kind::Path, std::move(text));
}

bool mentions(const FactMatcher &m, std::size_t i, std::string_view text)
{
    return m.mentions(i, FactText(text));
}

// The text the audit searches (audit.cpp keptText): the summary, then the kept messages.
std::string keptText(const Transcript &t, const audit::Compaction &c)
{
    std::string s = c.summary;
    for (const std::size_t i : c.keptMessages)
        for (const Block &b : t.messages[i].blocks) {
            s += '\n';
            s += b.text;
            if (b.type == BlockType::ToolUse && !b.input.is_null())
                s += '\n' + b.input.dump();
        }
    return s;
}

// How many facts of a compaction the summary holds byte for byte: the rule before factmatch.h.
std::size_t keptVerbatim(const Transcript &t, const audit::Compaction &c)
{
    const std::string text = keptText(t, c);
    std::size_t n = 0;
    for (const auto *list : {&c.kept, &c.dropped})
        for (const Fact &f : *list)
            n += text.find(f.text) != std::string::npos;
    return n;
}

// Path facts kept, the working directory itself aside (every absolute path in a summary starts with
// it; a relative one never names it).
std::size_t keptPaths(const audit::Compaction &c, const std::string &cwd)
{
    return std::size_t(std::count_if(c.kept.begin(), c.kept.end(), [&](const Fact &f) { return f.kind == Fact::Kind::Path && f.text != cwd; }));
}

// A message's text as the metrics search it (metrics.cpp appendText).
std::string messageText(const Message &m)
{
    std::string s;
    for (const auto &b : m.blocks) {
        s += b.text;
        s += '\n';
        if (b.type == BlockType::ToolUse && !b.input.is_null())
            s += b.input.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        s += '\n';
    }
    return s;
}

std::vector<std::string> sampleFiles()
{
    std::vector<std::string> out;
    for (const char *dir : {"claude-code", "codex", "gemini"}) {
        const QDir d(QStringLiteral(CL_SAMPLES_DIR "/") + QString::fromLatin1(dir));
        for (const QString &name : d.entryList({QStringLiteral("*.jsonl"), QStringLiteral("*.json")}, QDir::Files, QDir::Name))
            out.push_back(d.filePath(name).toStdString());
    }
    return out;
}

} // namespace

class TestFactMatch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void pathsRelativeToTheWorkingDirectory()
    {
        const std::vector<Fact> facts = {path("/home/u/proj/lib/app/router.ex"), path("/home/u/proj/lib/app/application.ex"),
                                         path("lib/app/endpoint.ex")};
        const FactMatcher m(facts, "/home/u/proj");
        QVERIFY(mentions(m, 0, "Edited /home/u/proj/lib/app/router.ex to add a route"));
        QVERIFY(mentions(m, 0, "Edited lib/app/router.ex to add a route"));
        QVERIFY(mentions(m, 0, "- `lib/app/router.ex`: the routes"));
        QVERIFY(mentions(m, 0, "see ./lib/app/router.ex."));
        QVERIFY(mentions(m, 0, "lib/app/router.ex:42 raised"));
        QVERIFY(mentions(m, 0, "~/proj/lib/app/router.ex"));
        QVERIFY(mentions(m, 0, "\"file_path\":\"/home/u/proj/lib/app/router.ex\""));
        // Unique basename.
        QVERIFY(mentions(m, 0, "Files: router.ex, application.ex"));
        QVERIFY(mentions(m, 1, "Files: router.ex, application.ex"));
        // Not another file whose name continues or ends the same way.
        QVERIFY(!mentions(m, 0, "Edited lib/app/router.exs"));
        QVERIFY(!mentions(m, 0, "router.exs and router.ex.bak"));
        QVERIFY(!mentions(m, 0, "lib/app/old_router.ex"));
        QVERIFY(!mentions(m, 0, "lib/app/router-ex"));
        QVERIFY(!mentions(m, 1, "nothing here"));
        // A relative fact: its absolute form counts too.
        QVERIFY(mentions(m, 2, "/home/u/proj/lib/app/endpoint.ex"));
        QVERIFY(mentions(m, 2, "./lib/app/endpoint.ex"));
        QVERIFY(!mentions(m, 2, "/home/u/other/lib/app/endpoint.exs"));
    }

    void basenameOnComponentBoundaries()
    {
        const std::vector<Fact> facts = {path("/p/a.ex"), path("/p/lib/data.ex")};
        const FactMatcher m(facts, "/p");
        QVERIFY(!mentions(m, 0, "changed lib/data.ex"));
        QVERIFY(!mentions(m, 0, "changed data.ex"));
        QVERIFY(mentions(m, 0, "changed a.ex."));
        QVERIFY(mentions(m, 1, "changed data.ex"));
        QVERIFY(!mentions(m, 1, "changed metadata.ex"));
    }

    void duplicateBasenameCountsForNeither()
    {
        const std::vector<Fact> facts = {path("/home/u/proj/lib/app/router.ex"), path("/home/u/proj/lib/web/router.ex"),
                                         path("/home/u/proj/mix.exs"), path("/home/u/proj/deps/x/mix.exs")};
        const FactMatcher m(facts, "/home/u/proj");
        QVERIFY(!mentions(m, 0, "Edited router.ex"));
        QVERIFY(!mentions(m, 1, "Edited router.ex"));
        QVERIFY(mentions(m, 0, "Edited lib/app/router.ex"));
        QVERIFY(!mentions(m, 1, "Edited lib/app/router.ex"));
        QVERIFY(mentions(m, 1, "Edited lib/web/router.ex"));
        // A file in the working directory: "mix.exs" and "./mix.exs" name it, "deps/x/mix.exs" the other.
        QVERIFY(mentions(m, 2, "Edited mix.exs"));
        QVERIFY(mentions(m, 2, "Edited ./mix.exs"));
        QVERIFY(!mentions(m, 2, "Edited deps/x/mix.exs"));
        QVERIFY(!mentions(m, 2, "Edited ../mix.exs"));
        QVERIFY(mentions(m, 3, "Edited deps/x/mix.exs"));
        QVERIFY(!mentions(m, 3, "Edited mix.exs"));
        // Two facts for one file (absolute and relative) share their basename with nobody.
        const std::vector<Fact> same = {path("/home/u/proj/lib/a.ex"), path("lib/a.ex")};
        const FactMatcher s(same, "/home/u/proj");
        QVERIFY(mentions(s, 0, "a.ex"));
        QVERIFY(mentions(s, 1, "a.ex"));
        // A folder in the working directory: named as a folder, not as a word.
        const std::vector<Fact> dirs = {path("/home/u/proj/src"), path("/home/u/proj/lib/app")};
        const FactMatcher d(dirs, "/home/u/proj");
        QVERIFY(!mentions(d, 0, "the src folder"));
        QVERIFY(mentions(d, 0, "in src/main.rs"));
        QVERIFY(mentions(d, 0, "in ./src/"));
        QVERIFY(!mentions(d, 0, "in lib/src/main.rs"));
        QVERIFY(mentions(d, 1, "in lib/app/router.ex"));
        QVERIFY(!mentions(d, 1, "in lib/application.ex"));
    }

    void withoutWorkingDirectory()
    {
        const std::vector<Fact> facts = {path("/home/u/proj/lib/app/router.ex"), path("/home/u/proj/lib/web/router.ex"),
                                         path("src/main.rs"), path("/home/u/proj/src")};
        const FactMatcher m(facts, "");
        QVERIFY(!mentions(m, 0, "Edited lib/app/router.ex")); // relative to what: unknown
        QVERIFY(mentions(m, 0, "Edited /home/u/proj/lib/app/router.ex"));
        QVERIFY(mentions(m, 2, "Edited ./src/main.rs"));
        QVERIFY(mentions(m, 2, "Edited main.rs"));
        // A directory's last component is a word, not evidence.
        QVERIFY(!mentions(m, 3, "the src folder"));
        QVERIFY(!mentions(m, 3, "the src/ folder")); // no working directory: relative to nothing
        QVERIFY(mentions(m, 3, "under /home/u/proj/src/"));
    }

    void commands()
    {
        const std::vector<Fact> facts = {fact(Fact::Kind::Command, "cd /home/u/proj &&   mix test  test/router_test.exs"),
                                         fact(Fact::Kind::Command, "make check"), fact(Fact::Kind::Command, "cd /p && ls"),
                                         fact(Fact::Kind::Command, "pytest tests/test_parser.py")};
        const FactMatcher m(facts, "/home/u/proj");
        QVERIFY(mentions(m, 0, "ran `mix test test/router_test.exs` (2 failures)"));
        QVERIFY(mentions(m, 0, "ran \"mix  test\n   test/router_test.exs\""));
        QVERIFY(mentions(m, 0, "cd /home/u/proj && mix test test/router_test.exs"));
        QVERIFY(!mentions(m, 0, "ran mix test test/other_test.exs"));
        QVERIFY(mentions(m, 1, "then `make check` passed"));
        QVERIFY(!mentions(m, 1, "then cmake check passed"));
        QVERIFY(!mentions(m, 1, "then make  test"));
        // "ls" alone is too short to count: the whole command is needed.
        QVERIFY(!mentions(m, 2, "ran ls"));
        QVERIFY(mentions(m, 2, "ran cd /p  && ls"));
        QVERIFY(mentions(m, 3, "ran 'pytest tests/test_parser.py'"));
        QVERIFY(!mentions(m, 3, "ran PYTEST tests/test_parser.py")); // commands keep their case
    }

    void requestsAndErrors()
    {
        const std::vector<Fact> facts = {fact(Fact::Kind::Request, "Fix the failing  parser test in /src/a.py"),
                                         fact(Fact::Kind::Error, "FAILED tests/test_parser.py::test_empty - AssertionError")};
        const FactMatcher m(facts, "");
        QVERIFY(mentions(m, 0, "The user asked: fix the failing parser\ntest in /src/a.py"));
        QVERIFY(!mentions(m, 0, "The user asked to fix the parser test"));
        QVERIFY(mentions(m, 1, "Errors: failed tests/test_parser.py::test_empty -   assertionerror"));
        QVERIFY(!mentions(m, 1, "Errors: tests/test_parser.py::test_empty failed"));
    }

    void textPreparedOnce()
    {
        const FactText t("  Mixed   CASE\ttext\n");
        QCOMPARE(t.spaced(), std::string("Mixed CASE text"));
        QCOMPARE(t.folded(), std::string("mixed case text"));
        QCOMPARE(&t.spaced(), &t.spaced());
        QCOMPARE(t.raw(), std::string_view("  Mixed   CASE\ttext\n"));
    }

    void workingDirectoryPerFormat()
    {
        const Transcript claude = test::generatedTranscript(Format::ClaudeCode, 20, 3);
        const std::string cwd = strategy::sessionCwd(claude);
        QVERIFY2(cwd.rfind("/home/dev/work/", 0) == 0, cwd.c_str());
        // Codex: session_meta in the header.
        const auto codex = loadFile(CL_TEST_DATA_DIR "/codex/live-compacted.jsonl").transcript;
        QVERIFY(codex);
        QCOMPARE(strategy::sessionCwd(*codex), std::string("/w"));
        // Codex without a usable session_meta cwd: a turn_context's.
        Transcript turns;
        turns.format = Format::Codex;
        turns.header = {{"cwd", "[trimmed for fixture]"}};
        Message ctx;
        ctx.kind = MessageKind::Meta;
        ctx.meta = {{"model", "gpt-5"}, {"cwd", "/tmp/repo/"}};
        turns.messages.push_back(ctx);
        QCOMPARE(strategy::sessionCwd(turns), std::string("/tmp/repo"));
        // Gemini CLI: the session context it sends first.
        Transcript gemini;
        gemini.format = Format::GeminiCli;
        gemini.messages.push_back(strategy::makeTextMessage(Role::User, "This is the Gemini CLI. My operating system is: linux\n"
                                                                        "I'm currently working in the directory: /home/u/site\nHere is the folder structure"));
        QCOMPARE(strategy::sessionCwd(gemini), std::string("/home/u/site"));
        QCOMPARE(strategy::sessionCwd(Transcript{}), std::string());
    }

    // The strategy metrics: a summary written with relative paths keeps the same facts as one with
    // absolute paths, and more than none.
    void metricsCountRelativeMentions()
    {
        const Transcript t = test::generatedTranscript(Format::ClaudeCode, 160, 11);
        const std::string cwd = strategy::sessionCwd(t);
        QVERIFY(!cwd.empty());
        strategy::Input in(t);
        const std::vector<Fact> facts = strategy::collectFacts(t);
        const std::size_t paths = std::size_t(std::count_if(facts.begin(), facts.end(), [](const Fact &f) { return f.kind == Fact::Kind::Path; }));
        QVERIFY(paths >= 5);

        auto summarized = [&](int form) { // 0: no paths, 1: absolute, 2: relative to cwd
            strategy::Editor e(in);
            const auto &view = e.conversation();
            std::size_t cut = view.size() / 2;
            while (cut < view.size() && !analysis::isUserRequest(t.messages[view[cut]]))
                ++cut;
            for (std::size_t p = 0; p < cut; ++p)
                e.remove(view[p], "test");
            std::string text = "Summary of the work so far.\nFiles:\n";
            for (const Fact &f : facts)
                if (form && f.kind == Fact::Kind::Path)
                    text += "- " + (form == 2 && f.text.rfind(cwd + "/", 0) == 0 ? f.text.substr(cwd.size() + 1) : f.text) + "\n";
            e.insertBefore(view[cut], strategy::makeTextMessage(Role::User, text), "summary");
            strategy::Result r = e.finish();
            strategy::computeStats(in, r, true);
            return r.stats;
        };
        const strategy::Stats none = summarized(0), absolute = summarized(1), relative = summarized(2);
        QCOMPARE(relative.factsTotal, facts.size());
        QCOMPARE(relative.factsKept, absolute.factsKept);
        QVERIFY2(relative.factsKept > none.factsKept, (std::to_string(relative.factsKept) + " vs " + std::to_string(none.factsKept)).c_str());
        // The absolute listing keeps every path fact byte for byte; so the relative one does too.
        QVERIFY(relative.factsKept - none.factsKept <= paths);
    }

    // The audit of generated Claude Code compactions: the same summary with its paths relative to the
    // project keeps the same path facts; byte-for-byte search found fewer.
    void auditGeneratedRelativeSummary()
    {
        gen::Options o;
        o.messages = 400;
        o.contextWindow = 40000;
        o.seed = 5;
        gen::Stats st;
        const std::string bytes = gen::generate(o, &st);
        QVERIFY(st.compactions >= 2);
        const auto t = loadBytes(bytes, "generated.jsonl").transcript;
        QVERIFY(t);
        const std::string cwd = strategy::sessionCwd(*t);
        QVERIFY(!cwd.empty());
        // The generated summaries list files as "   - <cwd>/<path>": write them relative instead.
        std::string rel = bytes;
        const std::string from = "   - " + cwd + "/";
        std::size_t replaced = 0;
        for (std::size_t at = rel.find(from); at != std::string::npos; at = rel.find(from, at), ++replaced)
            rel.replace(at, from.size(), "   - ");
        QVERIFY(replaced > 0);
        const auto tr = loadBytes(rel, "generated.jsonl").transcript;
        QVERIFY(tr);

        const audit::Options noRows{std::vector<std::string>{}, {}, 1};
        const auto a = audit::auditCompactions(*t, noRows), b = audit::auditCompactions(*tr, noRows);
        QCOMPARE(a.size(), b.size());
        QVERIFY(!a.empty());
        std::size_t matched = 0, verbatim = 0;
        for (std::size_t k = 0; k < a.size(); ++k) {
            QCOMPARE(b[k].factsTotal(), a[k].factsTotal());
            QCOMPARE(keptPaths(b[k], cwd), keptPaths(a[k], cwd));
            QVERIFY(a[k].kept.size() >= keptVerbatim(*t, a[k]));
            matched += b[k].kept.size();
            verbatim += keptVerbatim(*tr, b[k]);
        }
        qInfo("%zu compactions: %zu facts kept, %zu byte for byte", a.size(), matched, verbatim);
        QVERIFY2(matched > verbatim, (std::to_string(matched) + " vs " + std::to_string(verbatim)).c_str());
    }

    // The shared real samples: every path, request and error fact is found in the message it came
    // from (the matcher is not stricter than the text it was taken from), and the audit keeps at
    // least what a byte-for-byte search kept.
    void realSamples()
    {
        CL_REQUIRE_SAMPLES();
        const auto files = sampleFiles();
        QVERIFY(files.size() >= 5);
        std::size_t checked = 0;
        for (const std::string &file : files) {
            const auto t = loadFile(file).transcript;
            QVERIFY2(t, file.c_str());
            const std::vector<Fact> facts = strategy::collectFacts(*t);
            const FactMatcher m(facts, strategy::sessionCwd(*t));
            for (std::size_t i = 0; i < facts.size(); ++i) {
                if (facts[i].kind == Fact::Kind::Command)
                    continue; // a command's quotes are escaped in the call's JSON
                const std::string text = messageText(t->messages[facts[i].sources.front()]);
                QVERIFY2(m.mentions(i, FactText(text)), (file + ": " + facts[i].text).c_str());
                ++checked;
            }
            std::size_t kept = 0, verbatim = 0, total = 0;
            for (const auto &c : audit::auditCompactions(*t, audit::Options{std::vector<std::string>{}, {}, 1})) {
                QVERIFY2(c.kept.size() >= keptVerbatim(*t, c), file.c_str());
                kept += c.kept.size();
                verbatim += keptVerbatim(*t, c);
                total += c.factsTotal();
            }
            if (total)
                qInfo("%s: audit kept %zu/%zu facts (byte for byte: %zu)", file.c_str(), kept, total, verbatim);
        }
        QVERIFY(checked >= 10);
    }
};

QTEST_GUILESS_MAIN(TestFactMatch)
#include "tst_factmatch.moc"
