// SPDX-License-Identifier: MIT
// Where the context goes (core/workflow/composition.h): the categories add up exactly to the live
// context total at every message, on generated sessions of every format and on the recorded-shape
// fixtures and shared samples; the series over time agrees with the composition at each message;
// every suggestion's saving is what running its strategy frees; `contextlens-cli context`.
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"
#include "core/workflow/composition.h"

#include "test_support.h"

#include <QDir>
#include <QtTest>

using namespace cl;
namespace cp = cl::composition;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

std::shared_ptr<Transcript> generated(Format f, std::size_t messages, std::uint64_t seed)
{
    gen::Options o;
    o.format = f;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 300;
    return loadBytes(gen::generate(o), "generated", LoadOptions{}).transcript;
}

// The live context at `at` by definition: the fixed part and every conversation message sent with it.
std::int64_t expectedTotal(const Transcript &t, std::size_t at)
{
    std::size_t from = 0;
    for (std::size_t i = 0; i <= at; ++i)
        if (!t.messages[i].sidechain && t.messages[i].kind == MessageKind::CompactBoundary)
            from = i + 1;
    std::int64_t total = tokens::fixedPart(t).tokens;
    for (std::size_t i = from; i <= at; ++i) {
        const Message &m = t.messages[i];
        if (!m.sidechain && m.isTurn())
            total += tokens::estimateMessage(m);
    }
    return total;
}

void checkAddsUp(const Transcript &t, const std::string &name)
{
    QVERIFY2(!t.messages.empty(), name.c_str());
    const cp::Series series = cp::overTime(t);
    std::size_t row = 0;
    for (std::size_t at = 0; at < t.messages.size(); ++at) {
        const cp::Composition c = cp::compose(t, at);
        cp::Options seedOptions;
        seedOptions.estimator = tokens::Estimator::Seed;
        const cp::Composition seed = cp::compose(t, at, seedOptions);
        std::int64_t sum = 0;
        for (const auto &cat : c.categories)
            if (cat.group != cp::Group::Space)
                sum += cat.tokens;
        const std::string where = name + " at message " + std::to_string(at + 1);
        QVERIFY2(sum == c.total, (where + ": categories " + std::to_string(sum) + " != total " + std::to_string(c.total)).c_str());
        // In the agent's count: the live context figure at that message; by the seed estimator: the
        // definition, fixed part + every message sent with it.
        QVERIFY2(c.total == tokens::contextFigure(t, tokens::Estimator::Calibrated, at).total, where.c_str());
        QVERIFY2(seed.total == expectedTotal(t, at), (where + ": total " + std::to_string(seed.total) + " != "
                                                      + std::to_string(expectedTotal(t, at)))
                                                         .c_str());
        QVERIFY2(c.free + c.total + c.reserved >= c.window || c.free == 0, where.c_str());
        if (row < series.messages.size() && series.messages[row] == at) {
            QVERIFY2(series.totals[row] == c.total, (where + ": series total differs").c_str());
            for (std::size_t k = 0; k < series.keys.size(); ++k) {
                const cp::Category *cat = c.find(series.keys[k]);
                QVERIFY2(series.values[row][k] == (cat ? cat->tokens : 0), (where + ": series column " + series.keys[k]).c_str());
            }
            ++row;
        }
    }
    QCOMPARE(row, series.messages.size());
    // At the end: what every other figure calls the live context.
    const cp::Composition last = cp::compose(t);
    QCOMPARE(last.total, tokens::contextFigure(t).total);
    cp::Options seedOptions;
    seedOptions.estimator = tokens::Estimator::Seed;
    QCOMPARE(cp::compose(t, SIZE_MAX, seedOptions).total, tokens::totalEstimate(t) + tokens::fixedPart(t).tokens);
}

} // namespace

class TestComposition : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void addsUpOnGeneratedSessions_data()
    {
        QTest::addColumn<int>("format");
        for (Format f : {Format::ClaudeCode, Format::Codex, Format::GeminiCli, Format::CopilotCli, Format::Anthropic,
                         Format::OpenAIChat, Format::OpenAIResponses, Format::Gemini})
            QTest::newRow(std::string(formatName(f)).c_str()) << int(f);
    }
    void addsUpOnGeneratedSessions()
    {
        QFETCH(int, format);
        for (std::uint64_t seed : {1u, 2u}) {
            auto t = generated(Format(format), 140, seed);
            QVERIFY(t);
            checkAddsUp(*t, std::string(formatName(Format(format))) + " seed " + std::to_string(seed));
        }
    }

    void addsUpOnRecordedShapes()
    {
        for (const char *file :
             {"/codex/live-compacted.jsonl", "/geminicli/live-compressed.jsonl", "/claudecode/live-attachments.jsonl"}) {
            auto r = loadFile(std::string(CL_TEST_DATA_DIR) + file);
            QVERIFY(r.ok());
            checkAddsUp(*r.transcript, file);
        }
        CL_REQUIRE(cl::test::samplesPresent(), "samples not available");
        const QDir samples(QStringLiteral(CL_SAMPLES_DIR));
        for (const QString &sub : {QStringLiteral("claude-code"), QStringLiteral("codex"), QStringLiteral("gemini")})
            for (const QString &f : QDir(samples.filePath(sub)).entryList(QDir::Files)) {
                auto r = loadFile(QDir(samples.filePath(sub)).filePath(f).toStdString());
                if (!r.ok() || r.transcript->messages.empty())
                    continue;
                checkAddsUp(*r.transcript, QString(sub + QLatin1Char('/') + f).toStdString());
            }
    }

    // Claude Code's attachments after the last compaction are part of the fixed part, by category;
    // the ones before it, the ones it keeps to itself (prompt_snapshot) and a repeated reminder are not.
    void attachmentsOfTheLiveContextAreFixed()
    {
        auto r = loadFile(std::string(CL_TEST_DATA_DIR) + "/claudecode/live-attachments.jsonl");
        QVERIFY(r.ok());
        const Transcript &t = *r.transcript;
        const tokens::FixedPart fp = tokens::fixedPart(t);
        QCOMPARE(fp.source, tokens::FixedPart::Source::Recorded);
        const std::size_t live = liveStart(t);
        QVERIFY(live > 0);
        std::vector<std::string> kinds;
        std::int64_t sum = 0;
        for (const auto &a : fp.attachments) {
            QVERIFY(a.message > live);
            QCOMPARE(t.messages[a.message].type, "attachment/" + a.kind);
            kinds.push_back(a.kind);
            sum += a.tokens;
        }
        const std::vector<std::string> want = {"deferred_tools_delta", "agent_listing_delta", "skill_listing",
                                               "nested_memory", "environment", "total_tokens_reminder"};
        QCOMPARE(kinds, want); // t4 repeats t3's text: sent once
        QCOMPARE(fp.attachmentTokens, sum);
        QCOMPARE(fp.tokens, fp.systemTokens + fp.toolTokens + fp.attachmentTokens);
        QCOMPARE(tokens::attachmentCategory("prompt_snapshot"), std::string_view());
        QCOMPARE(tokens::attachmentCategory("skill_listing"), std::string_view("skills"));

        cp::Options seed; // the recorded texts as estimated, without the calibration's factor
        seed.estimator = tokens::Estimator::Seed;
        const cp::Composition c = cp::compose(t, SIZE_MAX, seed);
        const cp::Category *skills = c.find("attach:skills");
        QVERIFY(skills);
        QCOMPARE(skills->group, cp::Group::Fixed);
        // The skill listing's text, estimated: its content and names (the type name and flags aside).
        const auto &skill = fp.attachments[2];
        QCOMPARE(skills->tokens, skill.tokens);
        const nlohmann::json a = nlohmann::json::parse(t.messages[skill.message].blocks.front().text);
        std::int64_t text = tokens::estimateText(a["content"].get<std::string>());
        for (const auto &k : {"names", "digests"})
            for (const auto &v : a[k])
                text += tokens::estimateText(v.get<std::string>());
        QCOMPARE(skill.tokens, text);
        QCOMPARE(skills->messages, std::vector<std::uint32_t>{skill.message});
        QVERIFY(c.find("attach:memory") && c.find("attach:agents") && c.find("attach:mcp"));
        QCOMPARE(c.find("attach:environment")->items, std::size_t(2));
        QCOMPARE(c.find("mcp:tracker")->items, std::size_t(2));
        QCOMPARE(c.find("tools")->items, std::size_t(2));
        checkAddsUp(t, "live-attachments");
    }

    // Codex records its system prompt (session_meta base_instructions): the measured fixed part
    // splits into that prompt and the rest.
    void codexSystemPromptIsItsRecordedShare()
    {
        CL_REQUIRE_SAMPLES();
        auto r = loadFile(CL_SAMPLES_DIR "/codex/fixture-rollout.jsonl");
        QVERIFY(r.ok());
        const tokens::FixedPart fp = tokens::fixedPart(*r.transcript);
        QCOMPARE(fp.source, tokens::FixedPart::Source::Measured);
        const std::string base = r.transcript->header["base_instructions"]["text"].get<std::string>();
        QCOMPARE(fp.systemTokens, tokens::estimateText(base));
        const cp::Composition c = cp::compose(*r.transcript);
        QCOMPARE(c.find("system")->tokens, fp.systemTokens);
        QCOMPARE(c.find("fixed_rest")->tokens, fp.tokens - fp.systemTokens);
        QVERIFY(!c.find("fixed"));
    }

    // A compacted session: the composition at the end covers only what follows the compaction, and
    // a message before it is composed with the context of its own time.
    void compactionRestartsTheContext()
    {
        auto t = generated(Format::ClaudeCode, 300, 5);
        QVERIFY(t && liveStart(*t) > 0);
        const cp::Composition end = cp::compose(*t);
        QCOMPARE(end.from, liveStart(*t) + 1); // liveStart is the boundary itself, the first non-history message
        const cp::Composition before = cp::compose(*t, liveStart(*t) - 2);
        QVERIFY(before.from < end.from);
        QVERIFY(before.total > 0);
        // The fixed part comes first and is the file's.
        QCOMPARE(end.categories.front().group, cp::Group::Fixed);
        QCOMPARE(end.fixedSource, std::string("measured"));
    }

    void suggestionsSaveWhatTheirStrategyFrees()
    {
        auto t = generated(Format::ClaudeCode, 200, 3);
        const cp::Composition c = cp::compose(*t);
        const auto suggestions = cp::suggest(*t, c);
        QVERIFY(!suggestions.empty());
        int checked = 0;
        for (const auto &s : suggestions) {
            if (s.strategy.empty())
                continue;
            const auto *st = strategy::find(s.strategy);
            QVERIFY(st);
            strategy::Input in(*t);
            const auto r = strategy::run(*st, in, s.params);
            const std::int64_t frees = r.changed ? r.stats.liveBefore - r.stats.liveAfter : 0;
            QCOMPARE(s.frees, std::max<std::int64_t>(0, frees));
            // Clearing thinking frees the thinking of every response but the latest.
            if (s.strategy == "anthropic-clear-thinking") {
                QVERIFY(c.earlierThinking > 0 && c.earlierThinking < c.find("thinking")->tokens);
                // Both in the live figure's count; the result is counted from its calibrated estimate
                // once the thinking before the last measurement is gone.
                QVERIFY2(std::abs(double(s.frees - c.earlierThinking)) <= 0.05 * double(c.earlierThinking),
                         qPrintable(QStringLiteral("%1 vs %2").arg(s.frees).arg(c.earlierThinking)));
            }
            ++checked;
        }
        QVERIFY(checked >= 3);
    }

    void cliContext()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("s.jsonl")).toStdString();
        gen::Options o;
        o.messages = 120;
        o.seed = 4;
        cl::test::writeFile(path, gen::generate(o));
        auto r = cl::test::runCli({"context", path, "--json"});
        QCOMPARE(r.code, 0);
        const auto j = nlohmann::json::parse(r.out);
        std::int64_t sum = 0;
        for (const auto &c : j["categories"])
            if (c["group"] != "space")
                sum += c["tokens"].get<std::int64_t>();
        QCOMPARE(sum, j["total"].get<std::int64_t>());
        QVERIFY(j["suggestions"].is_array());
        r = cl::test::runCli({"context", path, "--at", "10"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.rfind("context at message 10 ", 0) == 0, r.out.c_str());
        r = cl::test::runCli({"context", path, "--over-time", "--csv"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.rfind("message,total,", 0) == 0);
        r = cl::test::runCli({"context", path, "--at", "100000"});
        QCOMPARE(r.code, 2);
    }
};

QTEST_GUILESS_MAIN(TestComposition)
#include "tst_composition.moc"
