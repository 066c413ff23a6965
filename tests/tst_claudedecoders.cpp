// SPDX-License-Identifier: MIT
// The Claude Code loader has two line decoders: the fast one on simdjson (the hot path) and the plain
// one on nlohmann's DOM (the reference, and the fallback for lines simdjson refuses). They must give
// the same result for every line: every line of every sample and of the project's own inputs, a
// generated session, and mutated lines (every key given a value of every other type, bytes flipped,
// lines cut). CTest runs it in shards (CL_TEST_SHARD), each checking every N-th line.
#include "core/formats/claudecode/internal.h"
#include "core/generator/generator.h"
#include "core/util/json.h"

#include "test_shard.h"
#include "test_support.h"
#include "write_paths.h"

#include <QDirIterator>
#include <QtTest>

#include <random>

using namespace cl;
using namespace cl::formats::claudecode;

namespace {

std::string describe(const LineInfo &l)
{
    std::string s = std::to_string(int(l.kind)) + (l.sidechain ? " side" : "") + (l.isMeta ? " meta" : "")
                    + (l.compactSummary ? " summary" : "") + (l.toolResultsOnly ? " results" : "") + (l.hasParentKey ? " parentKey" : "")
                    + "|" + l.type + "|" + l.subtype + "|" + l.uuid + "|" + l.parentUuid + "|" + l.logicalParentUuid + "|" + l.agentId
                    + "|" + l.timestamp + "|" + l.apiId + "|" + l.model + "|" + json::dump(l.meta);
    for (const auto &b : l.blocks)
        s += "\n  block " + std::string(blockTypeName(b.type)) + "|" + b.text + "|" + b.toolId + "|" + b.toolName + "|"
             + json::dump(b.input) + "|" + b.mediaType + "|" + std::to_string(b.dataSize) + (b.isError ? "|error" : "")
             + (b.serverSide ? "|server" : "");
    if (l.usage)
        s += "\n  usage " + std::to_string(l.usage->inputTokens) + " " + std::to_string(l.usage->outputTokens) + " "
             + std::to_string(l.usage->cacheCreationTokens) + " " + std::to_string(l.usage->cacheReadTokens) + " "
             + std::to_string(l.usage->reasoningTokens) + " " + std::to_string(l.usage->contextWindow);
    for (const auto &p : l.problems)
        s += "\n  problem " + std::to_string(int(p.severity)) + " " + p.text;
    return s;
}

struct Lines {
    std::vector<std::string> lines;
    std::size_t files = 0;
};

Lines corpus()
{
    Lines out;
    auto addFile = [&out](const std::string &bytes) {
        ++out.files;
        for (const auto &span : json::splitLines(bytes))
            out.lines.push_back(bytes.substr(span.offset, span.contentLength));
    };
    for (const QString &dir : {QStringLiteral(CL_SAMPLES_DIR "/claude-code"), QStringLiteral(CL_TEST_DATA_DIR "/claudecode")}) {
        QDirIterator it(dir, {QStringLiteral("*.jsonl")}, QDir::Files);
        while (it.hasNext())
            addFile(test::readFile(it.next().toStdString()));
    }
    addFile(test::readFile(CL_TEST_DATA_DIR "/robustness/own-claude.jsonl"));
    addFile(test::readFile(CL_TEST_DATA_DIR "/robustness/wrong-types.jsonl"));
    gen::Options g;
    g.messages = 300;
    g.seed = 11;
    g.maxReadLines = 300;
    addFile(gen::generate(g));
    return out;
}

// Both decoders on one line; empty when they agree, else both descriptions.
std::string disagreement(const std::string &line, LineDecoder &fast)
{
    LineInfo plain, quick;
    decodeLine(line, false, plain);
    std::string padded = line;
    padded.append(64, ' ');
    fast.decode(std::string_view(padded).substr(0, line.size()), 64, false, quick);
    const std::string a = describe(plain), b = describe(quick);
    return a == b ? std::string() : "plain:\n" + a + "\nfast:\n" + b;
}

} // namespace

class TestClaudeDecoders : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void everyLineTheSame()
    {
        CL_REQUIRE_SAMPLES();
        const Lines c = corpus();
        QVERIFY(c.files >= 8);
        LineDecoder fast;
        const test::Shard shard = test::shardFromEnvironment();
        for (std::size_t i = 0; i < c.lines.size(); ++i) {
            if (!shard.has(i))
                continue;
            const std::string &line = c.lines[i];
            const std::string d = disagreement(line, fast);
            QVERIFY2(d.empty(), (line.substr(0, 300) + "\n" + d).c_str());
        }
    }

    void mutatedLinesTheSame()
    {
        CL_REQUIRE_SAMPLES();
        const Lines c = corpus();
        LineDecoder fast;
        std::mt19937_64 rng(20261127);
        std::size_t tried = 0;
        const test::Shard shard = test::shardFromEnvironment();
        for (std::size_t i = 0; i < c.lines.size(); ++i) {
            if (!shard.has(i))
                continue; // another shard's line (the random flips below differ from one shard to another)
            const std::string &line = c.lines[i];
            // Every key of the line given a value of every other type (lines up to 16 KB).
            if (line.size() <= 16384)
                test::forEachTypeMutant(
                    line + "\n", [&](const test::TypeMutant &m) {
                        const std::string mutated = m.bytes.substr(0, m.bytes.size() - 1);
                        const std::string d = disagreement(mutated, fast);
                        ++tried;
                        QVERIFY2(d.empty(), (m.label + "\n" + mutated.substr(0, 300) + "\n" + d).c_str());
                    },
                    7);
            // Bytes flipped and the line cut.
            for (int k = 0; k < 4 && !line.empty(); ++k) {
                std::string mutated = line;
                if (k % 2)
                    mutated.resize(rng() % mutated.size());
                else
                    for (int n = 0; n < 3; ++n)
                        mutated[rng() % mutated.size()] = char(rng());
                const std::string d = disagreement(mutated, fast);
                ++tried;
                QVERIFY2(d.empty(), (mutated.substr(0, 300) + "\n" + d).c_str());
            }
        }
        QVERIFY(tried > 5000 / shard.count);
        qInfo("%zu mutated lines decoded both ways", tried);
    }
};

QTEST_GUILESS_MAIN(TestClaudeDecoders)
#include "tst_claudedecoders.moc"
