// SPDX-License-Identifier: MIT
// analyze() splits its work over two threads (rounds, critical tools and facts in one walk on the
// second; priorities claimed in chunks by both): on sessions large enough for that split its parts
// must equal the standalone functions, and the reason lists built on demand must add up to the
// scores that analyze() stored.
#include "core/analysis/analysis.h"

#include "test_support.h"

#include <QtTest>

#include <cmath>

using namespace cl;
using namespace cl::analysis;

namespace {

Transcript generated(Format f, std::size_t messages, std::uint64_t seed)
{
    return test::generatedTranscript(f, messages, seed);
}

bool samePriority(const PriorityInfo &a, const PriorityInfo &b)
{
    return a.priority == b.priority && a.rule == b.rule && a.blocks == b.blocks && a.blockRules == b.blockRules;
}

bool sameRound(const ToolRound &a, const ToolRound &b)
{
    if (a.assistant != b.assistant || a.chain != b.chain || a.failed != b.failed || !(a.results == b.results)
        || a.calls.size() != b.calls.size())
        return false;
    for (std::size_t k = 0; k < a.calls.size(); ++k) {
        const ToolCall &x = a.calls[k], &y = b.calls[k];
        if (x.message != y.message || x.block != y.block || x.id != y.id || x.name != y.name || x.kind != y.kind
            || x.resultMessage != y.resultMessage || x.failed != y.failed)
            return false;
    }
    return true;
}

} // namespace

class TestAnalysisParallel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void partsEqualStandaloneFunctions_data()
    {
        QTest::addColumn<int>("format");
        QTest::addColumn<int>("messages");
        QTest::addColumn<bool>("smallOptions");
        // 5000 and 9000 messages: above the two-thread threshold (2000) and several priority chunks.
        QTest::newRow("claude-code") << int(Format::ClaudeCode) << 5000 << false;
        QTest::newRow("anthropic") << int(Format::Anthropic) << 9000 << false;
        QTest::newRow("codex") << int(Format::Codex) << 5000 << false;
        QTest::newRow("gemini-cli") << int(Format::GeminiCli) << 5000 << true;
        QTest::newRow("openai-chat small") << int(Format::OpenAIChat) << 600 << true; // one thread
    }
    void partsEqualStandaloneFunctions()
    {
        QFETCH(int, format);
        QFETCH(int, messages);
        QFETCH(bool, smallOptions);
        const Transcript t = generated(Format(format), std::size_t(messages), 11);
        AnalysisOptions o;
        if (smallOptions) { // other recent sets than the defaults, so the plan really varies
            o.criticalUserMessages = 40;
            o.highToolResults = 0;
            o.largeReadTokens = 50;
        }
        const Analysis a = analyze(t, o);
        const ConversationView v = conversationView(t);
        QCOMPARE(a.view.index, v.index);

        const std::vector<PriorityInfo> p = priorities(t, v, o);
        QCOMPARE(a.priority.size(), p.size());
        std::size_t excluded = 0;
        for (std::size_t i = 0; i < p.size(); ++i) {
            QVERIFY2(samePriority(a.priority[i], p[i]), qPrintable(QStringLiteral("message %1").arg(i)));
            excluded += a.priority[i].priority == Priority::Excluded;
        }
        QVERIFY(excluded < p.size() / 2); // the chunks really assigned classes

        const std::vector<ToolRound> rounds = toolRounds(t, v);
        QCOMPARE(a.rounds.size(), rounds.size());
        QVERIFY(rounds.size() > std::size_t(messages) / 20);
        for (std::size_t k = 0; k < rounds.size(); ++k)
            QVERIFY2(sameRound(a.rounds[k], rounds[k]), qPrintable(QStringLiteral("round %1").arg(k)));

        const std::vector<CriticalTool> critical = criticalTools(t, rounds, o);
        QCOMPARE(a.critical.size(), critical.size());
        for (std::size_t k = 0; k < critical.size(); ++k) {
            QCOMPARE(a.critical[k].message, critical[k].message);
            QCOMPARE(a.critical[k].category, critical[k].category);
            QCOMPARE(a.critical[k].reason, critical[k].reason);
        }

        const Facts f = facts(t, v);
        QCOMPARE(a.facts.userRequests, f.userRequests);
        QCOMPARE(a.facts.filesRead, f.filesRead);
        QCOMPARE(a.facts.filesModified, f.filesModified);
        QCOMPARE(a.facts.commands, f.commands);
        QCOMPARE(a.facts.errors, f.errors);
        QCOMPARE(a.facts.pendingTask, f.pendingTask);
        QCOMPARE(a.facts.currentWork, f.currentWork);
        QCOMPARE(a.facts.currentWorkIndex, f.currentWorkIndex);
        QVERIFY(!f.userRequests.empty() && !f.commands.empty());
    }

    // Reasons are rebuilt from what a score kept: they list the rules that fired, and their points
    // add up to the stored score (importance: before clamping to 0..1; points exactly).
    void reasonsAddUpToScores()
    {
        const Transcript t = generated(Format::ClaudeCode, 3000, 4);
        const Analysis a = analyze(t);
        QVERIFY(a.boundaries.size() > 1000);
        std::size_t sequences = 0, breaks = 0;
        for (const BoundaryScore &b : a.boundaries) {
            const Reasons r = reasonsFor(b, a.options);
            QCOMPARE(r.front().rule, std::string_view("base"));
            double sum = 0;
            bool seq = false, brk = false;
            for (const Reason &x : r) {
                sum += x.points;
                seq = seq || x.rule.substr(0, 13) == "tool_sequence" || x.rule == "pair_spans_cut";
                brk = brk || x.rule == "conversation_break";
            }
            QCOMPARE(sum, b.score);
            QCOMPARE(seq, b.inToolSequence);
            QCOMPARE(brk, b.conversationBreak);
            sequences += seq;
            breaks += brk;
        }
        QVERIFY(sequences > 0 && breaks > 0);
        for (const Importance &im : a.importance) {
            double sum = 0;
            for (const Reason &x : reasonsFor(im, a.options))
                sum += x.points;
            QVERIFY(std::abs(std::clamp(sum, 0.0, 1.0) - im.score) < 1e-9);
            double points = 0;
            for (const Reason &x : pointReasonsFor(im))
                points += x.points;
            QCOMPARE(int(points), im.points);
        }
    }
};

QTEST_GUILESS_MAIN(TestAnalysisParallel)
#include "tst_analysisparallel.moc"
