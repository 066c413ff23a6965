// SPDX-License-Identifier: MIT
// Exact per-family token counts (tokens/counts.h), the estimator error report and `contextlens-cli tokens`.
// Parts that need the real vocabularies skip when scripts/fetch-vocab.sh has not been run.
#include <QtTest>

#include "core/tokens/bpe.h"
#include "cli/cli.h"
#include "core/io/loader.h"
#include "core/tokens/counts.h"
#include "core/tokens/estimator.h"

#include "test_support.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

using namespace cl;
using tokencount::Count;

namespace {

std::shared_ptr<const bpe::Tokenizer> o200k() { return bpe::Tokenizer::load(bpe::Encoding::O200kBase); }
std::shared_ptr<const bpe::Tokenizer> cl100k() { return bpe::Tokenizer::load(bpe::Encoding::Cl100kBase); }

Message textMessage(Role role, std::string text, std::optional<std::int64_t> context = std::nullopt)
{
    Message m;
    m.role = role;
    Block b;
    b.text = std::move(text);
    m.blocks.push_back(std::move(b));
    if (context) {
        Usage u;
        u.inputTokens = *context;
        m.usage = u;
    }
    return m;
}

void writeFile(const QString &path, const std::string &bytes)
{
    std::ofstream(path.toStdString(), std::ios::binary) << bytes;
}

} // namespace

class TestTokenCount : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exactCounts()
    {
        const auto o = o200k();
        const auto c = cl100k();
        CL_REQUIRE(o || !c, "vocabularies missing (scripts/fetch-vocab.sh)");
        // Ids from the tiktoken test plans (vocab/TestPlans.txt).
        QCOMPARE(o->encode("hello world"), (std::vector<std::uint32_t>{24912, 2375}));
        QCOMPARE(o->encode("hello"), (std::vector<std::uint32_t>{24912}));
        QCOMPARE(o->count("Hello, World! How are you today? \xF0\x9F\x8C\x8D"), std::size_t(11));
        QCOMPARE(o->count("\xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF\xE3\x80\x81\xE4\xB8\x96\xE7\x95\x8C"
                          "\xEF\xBC\x81\xE3\x81\x8A\xE5\x85\x83\xE6\xB0\x97\xE3\x81\xA7\xE3\x81\x99\xE3\x81\x8B\xEF\xBC\x9F"),
                 std::size_t(10)); // こんにちは、世界！お元気ですか？
        QCOMPARE(c->count("Hello, World! How are you today? \xF0\x9F\x8C\x8D"), std::size_t(12));
        QCOMPARE(c->count("hello world"), std::size_t(2));
    }

    void familyAndEncoding()
    {
        using tokencount::Family;
        QCOMPARE(tokencount::encodingForModel("gpt-4-0613"), bpe::Encoding::Cl100kBase);
        QCOMPARE(tokencount::encodingForModel("gpt-3.5-turbo"), bpe::Encoding::Cl100kBase);
        QCOMPARE(tokencount::encodingForModel("gpt-4o-mini"), bpe::Encoding::O200kBase);
        QCOMPARE(tokencount::encodingForModel("gpt-4.1"), bpe::Encoding::O200kBase);
        QCOMPARE(tokencount::encodingForModel("gpt-5-codex"), bpe::Encoding::O200kBase);
        Transcript t;
        t.format = Format::Anthropic;
        t.messages.push_back(textMessage(Role::User, "x"));
        QCOMPARE(tokencount::detectFamily(t), Family::Claude);
        t.format = Format::GeminiCli;
        QCOMPARE(tokencount::detectFamily(t), Family::Gemini);
        t.format = Format::Codex;
        QCOMPARE(tokencount::detectFamily(t), Family::OpenAI);
        // A recognised model name wins over the format.
        t.messages.push_back(textMessage(Role::Assistant, "y"));
        t.messages.back().model = "o3-mini";
        t.format = Format::Anthropic;
        QCOMPARE(tokencount::detectFamily(t), Family::OpenAI);
        t.messages.back().model = "claude-sonnet-4-5";
        t.format = Format::OpenAIChat;
        QCOMPARE(tokencount::detectFamily(t), Family::Claude);
    }

    void openAIFraming()
    {
        CL_REQUIRE(o200k(), "vocabularies missing (scripts/fetch-vocab.sh)");
        Transcript t;
        t.format = Format::OpenAIChat;
        t.messages.push_back(textMessage(Role::User, "hello world")); // 2 + 3
        t.messages.push_back(textMessage(Role::Assistant, "hello"));  // 1 + 3
        Message tool;
        tool.role = Role::Tool;
        Block r;
        r.type = BlockType::ToolResult;
        r.text = "hello world";
        tool.blocks.push_back(r);
        t.messages.push_back(tool); // 2 + 3
        Message event = textMessage(Role::System, "a long event line that is never sent");
        event.kind = MessageKind::Event;
        t.messages.push_back(event);
        Message side = textMessage(Role::Assistant, "hello world");
        side.sidechain = true;
        t.messages.push_back(side);

        const auto c = tokencount::countTranscript(t);
        QCOMPARE(c.family, tokencount::Family::OpenAI);
        QCOMPARE(c.encoding, std::string("o200k_base"));
        QCOMPARE(c.messages.size(), t.messages.size());
        QCOMPARE(c.messages[0].tokens, 5);
        QCOMPARE(c.messages[1].tokens, 4);
        QCOMPARE(c.messages[2].tokens, 5);
        QCOMPARE(c.messages[3].tokens, 0);
        QCOMPARE(c.messages[4].tokens, 5); // counted, but not in the main context
        for (const auto &m : c.messages)
            QCOMPARE(m.source, Count::Exact);
        QCOMPARE(c.total.tokens, 5 + 4 + 5 + 3); // + reply priming
        QCOMPARE(c.total.source, Count::Exact);

        // gpt-4 switches to cl100k ("hello world" is 2 tokens there too), an image makes it Estimated.
        t.messages[1].model = "gpt-4-0613";
        Block img;
        img.type = BlockType::Image;
        t.messages[0].blocks.push_back(img);
        const auto c2 = tokencount::countTranscript(t);
        QCOMPARE(c2.encoding, std::string("cl100k_base"));
        QCOMPARE(c2.messages[0].tokens, 5 + tokens::kImageTokens);
        QCOMPARE(c2.messages[0].source, Count::Estimated);
        QCOMPARE(c2.total.source, Count::Estimated);
        QCOMPARE(c2.total.tokens, 5 + tokens::kImageTokens + 4 + 5 + 3);
    }

    void claudeFactor()
    {
        CL_REQUIRE(o200k(), "vocabularies missing (scripts/fetch-vocab.sh)");
        // o200k with framing: "hello world" = 5, "hello" = 4.
        Transcript t;
        t.format = Format::ClaudeCode;
        t.messages.push_back(textMessage(Role::User, "hello world"));            // 0: 5
        t.messages.push_back(textMessage(Role::Assistant, "hello", 1000));       // 1: 4, context 1000
        t.messages.push_back(textMessage(Role::User, "hello world"));            // 2: 5
        t.messages.push_back(textMessage(Role::Assistant, "hello world", 1012)); // 3: 5, growth 12 over 4+5
        t.messages.push_back(textMessage(Role::User, "hello world"));            // 4: 5
        t.messages.push_back(textMessage(Role::Assistant, "hello", 1022));       // 5: 4, growth 10 over 5+5
        t.messages.push_back(textMessage(Role::User, "hello world"));            // 6: 5
        const auto c = tokencount::countTranscript(t);
        QCOMPARE(c.family, tokencount::Family::Claude);
        QCOMPARE(c.factorPairs, std::size_t(2));
        QVERIFY(std::abs(c.factor - 22.0 / 19.0) < 1e-9); // (12 + 10) / (9 + 10)
        QCOMPARE(c.lastUsageMessage, 5);
        // Overhead: 1000 - round(5 * 22/19 = 5.79) = 994; message 0 gets the remaining 6.
        QCOMPARE(c.overhead, 994);
        QCOMPARE(c.messages[0].tokens, 6);
        // Growth 12 shared 4:5 -> round(12 * 4/9) = 5, then 7; growth 10 shared 5:5.
        QCOMPARE(c.messages[1].tokens, 5);
        QCOMPARE(c.messages[2].tokens, 7);
        QCOMPARE(c.messages[3].tokens, 5);
        QCOMPARE(c.messages[4].tokens, 5);
        for (int i = 0; i <= 4; ++i)
            QCOMPARE(c.messages[std::size_t(i)].source, Count::Measured);
        // After the last usage: round(4 * 1.158) = 5 and round(5 * 1.158) = 6, Estimated.
        QCOMPARE(c.messages[5].tokens, 5);
        QCOMPARE(c.messages[6].tokens, 6);
        QCOMPARE(c.messages[5].source, Count::Estimated);
        QCOMPARE(c.messages[6].source, Count::Estimated);
        QCOMPARE(c.measuredPart, 1022);
        QCOMPARE(c.estimatedPart, 11);
        QCOMPARE(c.total.tokens, 1033);
        QCOMPARE(c.total.source, Count::Estimated);
        QVERIFY(c.total.how.find("measured 1022") != std::string::npos);

        // Ending on the response with usage: its own text is not part of its input, so it is still
        // estimated: 1022 + round(4 * 22/19).
        t.messages.pop_back();
        const auto m = tokencount::countTranscript(t);
        QCOMPARE(m.total.tokens, 1022 + 5);
        QCOMPARE(m.estimatedPart, 5);
        QCOMPARE(m.total.source, Count::Estimated);

        // A huge growth is clamped to 1.6; one usage point gives the default 1.0.
        Transcript big;
        big.format = Format::Anthropic;
        big.messages.push_back(textMessage(Role::User, "hello world"));
        big.messages.push_back(textMessage(Role::Assistant, "hello", 100));
        big.messages.push_back(textMessage(Role::User, "hello world"));
        big.messages.push_back(textMessage(Role::Assistant, "hello", 190)); // 90 over 9 -> 10
        const auto b = tokencount::countTranscript(big);
        QVERIFY(std::abs(b.rawFactor - 10.0) < 1e-9);
        QCOMPARE(b.factor, tokencount::kMaxFactor);
        big.messages.back().usage.reset();
        const auto d = tokencount::countTranscript(big);
        QCOMPARE(d.factorPairs, std::size_t(0));
        QCOMPARE(d.factor, 1.0);
        QCOMPARE(d.total.tokens, 100 + 4 + 5 + 4); // measured 100, then 4 + 5 + 4 unscaled

        // After a compaction without usage, nothing is measured.
        Message boundary;
        boundary.kind = MessageKind::CompactBoundary;
        boundary.role = Role::System;
        big.messages.push_back(boundary);
        big.messages.push_back(textMessage(Role::User, "hello world"));
        const auto e = tokencount::countTranscript(big);
        QCOMPARE(e.lastUsageMessage, -1);
        QCOMPARE(e.total.tokens, 5);
        QCOMPARE(e.total.source, Count::Estimated);
    }

    void fallbackWithoutVocabulary()
    {
        Transcript t;
        t.format = Format::OpenAIChat;
        t.messages.push_back(textMessage(Role::User, "hello world, this is a test of the estimator"));
        t.messages.push_back(textMessage(Role::Assistant, "fine"));
        tokencount::CountOptions opts;
        opts.noVocab = true;
        const auto c = tokencount::countTranscript(t, opts);
        QVERIFY(c.encoding.empty());
        QVERIFY(!c.note.empty());
        QCOMPARE(c.messages[0].source, Count::Estimated);
        QCOMPARE(c.messages[0].tokens, tokens::estimateMessage(t.messages[0]));
        QCOMPARE(c.total.source, Count::Estimated);
        QCOMPARE(c.total.tokens, tokens::estimateMessage(t.messages[0]) + tokens::estimateMessage(t.messages[1]) + 3);

        // Claude keeps its measured part without a vocabulary: usage needs none.
        t.format = Format::ClaudeCode;
        t.messages.push_back(textMessage(Role::User, "more"));
        t.messages[1].usage = Usage{};
        t.messages[1].usage->inputTokens = 500;
        const auto d = tokencount::countTranscript(t, opts);
        QCOMPARE(d.measuredPart, 500);
        QCOMPARE(d.messages[0].source, Count::Measured);
        QCOMPARE(d.messages[2].source, Count::Estimated);
        QCOMPARE(d.total.tokens, 500 + tokens::estimateMessage(t.messages[1]) + tokens::estimateMessage(t.messages[2]));
    }

    void cacheRecountsOnlyChanges()
    {
        const auto o = o200k();
        CL_REQUIRE(o, "vocabularies missing (scripts/fetch-vocab.sh)");
        Transcript t;
        t.format = Format::OpenAIChat;
        for (int i = 0; i < 10; ++i)
            t.messages.push_back(textMessage(i % 2 ? Role::Assistant : Role::User, "hello world"));
        tokencount::CountCache cache;
        tokencount::CountOptions opts;
        opts.cache = &cache;
        QCOMPARE(tokencount::countTranscript(t, opts).total.tokens, 10 * 5 + 3);
        QCOMPARE(cache.computed(), std::size_t(10));
        tokencount::countTranscript(t, opts);
        QCOMPARE(cache.computed(), std::size_t(10));
        t.messages[3].blocks[0].text = "hello";
        QCOMPARE(tokencount::countTranscript(t, opts).total.tokens, 9 * 5 + 4 + 3);
        QCOMPARE(cache.computed(), std::size_t(11));
    }

    // The estimator table through a SampleCache: equal to the uncached table, a second run counts
    // nothing, an edit counts only the changed sample, a cancelled run gives no table.
    void sampleCacheCountsOnlyNewSamples()
    {
        const auto o = o200k();
        CL_REQUIRE(o, "vocabularies missing (scripts/fetch-vocab.sh)");
        Transcript t;
        t.format = Format::OpenAIChat;
        const char *texts[] = {"Please fix the parser.", "def f(x):\n    return x + 1\n", "Please fix the parser.",
                               "{\"a\": [1, 2, 3]}", "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C"};
        for (int i = 0; i < 5; ++i)
            t.messages.push_back(textMessage(i % 2 ? Role::Assistant : Role::User, texts[i]));
        auto same = [](const tokencount::ErrorTable &a, const tokencount::ErrorTable &b) {
            if (a.rows.size() != b.rows.size() || a.total.samples != b.total.samples || a.total.exact != b.total.exact
                || a.total.estimator != b.total.estimator || a.total.charsDiv4 != b.total.charsDiv4)
                return false;
            for (std::size_t k = 0; k < a.rows.size(); ++k)
                if (a.rows[k].type != b.rows[k].type || a.rows[k].samples != b.rows[k].samples
                    || a.rows[k].exact != b.rows[k].exact)
                    return false;
            return true;
        };
        tokencount::SampleCache cache;
        const auto first = tokencount::estimatorErrorTable(t, *o, cache);
        QVERIFY(first);
        QVERIFY(same(*first, tokencount::estimatorErrorTable(t, *o)));
        QCOMPARE(first->total.samples, std::size_t(5));
        QCOMPARE(first->rows.size(), std::size_t(4)); // prose (2 samples), code, json, cjk
        QCOMPARE(cache.computed(), std::size_t(4));   // the repeated request is counted once
        QVERIFY(same(*tokencount::estimatorErrorTable(t, *o, cache), *first));
        QCOMPARE(cache.computed(), std::size_t(4));
        t.messages[3].blocks[0].text = "A fresh sentence that nobody wrote before.";
        const auto edited = tokencount::estimatorErrorTable(t, *o, cache);
        QVERIFY(edited && same(*edited, tokencount::estimatorErrorTable(t, *o)));
        QCOMPARE(cache.computed(), std::size_t(5));
        QCOMPARE(edited->rows.size(), std::size_t(3)); // the json sample became prose
        const std::atomic<bool> cancelled{true};
        QVERIFY(!tokencount::estimatorErrorTable(t, *o, cache, &cancelled));
    }

    void classification()
    {
        using tokencount::ContentType;
        QCOMPARE(tokencount::classify("The quick brown fox jumps over the lazy dog. It was a sunny day, and all was well."),
                 ContentType::Prose);
        QCOMPARE(tokencount::classify("#include <cstdio>\nint main() {\n    std::puts(\"hi\");\n    return 0;\n}\n"),
                 ContentType::Code);
        QCOMPARE(tokencount::classify("Here is the fix:\n```python\nprint(1)\n```\n"), ContentType::Code);
        QCOMPARE(tokencount::classify("  {\"name\": \"Read\", \"args\": [1, 2, {\"x\": null}]}\n"), ContentType::Json);
        QCOMPARE(tokencount::classify("[1, 2 and then the rest of the sentence goes on"), ContentType::Prose); // not JSON
        QCOMPARE(tokencount::classify("\xE3\x81\x93\xE3\x82\x93\xE3\x81\xAB\xE3\x81\xA1\xE3\x81\xAF hello"), ContentType::Cjk);
        QCOMPARE(tokencount::classify("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="),
                 ContentType::Base64);
        QCOMPARE(tokencount::classify("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), ContentType::Prose);
        QCOMPARE(tokencount::charsDiv4("hello world"), 3);
        QCOMPARE(tokencount::charsDiv4("\xE3\x81\x93\xE3\x82\x93"), 1); // 2 code points

        const auto o = o200k();
        CL_REQUIRE(o, "vocabularies missing (scripts/fetch-vocab.sh)");
        const std::vector<std::string_view> samples{"hello world", "hello", "{\"a\": 1}"};
        const auto table = tokencount::estimatorErrorTable(samples, *o);
        QCOMPARE(table.rows.size(), std::size_t(2));
        QCOMPARE(table.rows[0].type, ContentType::Prose);
        QCOMPARE(table.rows[0].samples, std::size_t(2));
        QCOMPARE(table.rows[0].exact, 3);         // 2 + 1
        QCOMPARE(table.rows[0].charsDiv4, 3 + 2); // ceil(11/4) + ceil(5/4)
        QCOMPARE(table.rows[0].estimator, tokens::estimateText("hello world") + tokens::estimateText("hello"));
        QVERIFY(std::abs(table.rows[0].charsErrorPercent() - 200.0 / 3.0) < 1e-9); // (5 - 3) / 3
        QCOMPARE(table.rows[1].type, ContentType::Json);
        QCOMPARE(table.total.samples, std::size_t(3));
        QCOMPARE(table.total.exact, table.rows[0].exact + table.rows[1].exact);
        const std::string text = tokencount::formatTable(table);
        QVERIFY(text.find("prose") != std::string::npos && text.find("json") != std::string::npos);
        QVERIFY(text.find("66.7%") != std::string::npos);
    }

    void cliFileAndJson()
    {
        CL_REQUIRE(o200k(), "vocabularies missing (scripts/fetch-vocab.sh)");
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("hello.txt"));
        writeFile(file, "hello world");
        std::string out, err;
        QCOMPARE(cli::run({"tokens", file.toStdString()}, out, err), int(cli::Success));
        QCOMPARE(out, std::string("2\n"));
        out.clear();
        QCOMPARE(cli::run({"tokens", file.toStdString(), "--json", "--encoding", "cl100k_base"}, out, err), int(cli::Success));
        const auto j = nlohmann::json::parse(out);
        QCOMPARE(j["encoding"].get<std::string>(), std::string("cl100k_base"));
        QCOMPARE(j["bytes"].get<int>(), 11);
        QCOMPARE(j["tokens"].get<int>(), 2);
        QVERIFY(j["seconds"].is_number() && j["seconds"].get<double>() >= 0);
        // A plain text file with --report is just counted.
        out.clear();
        err.clear();
        QCOMPARE(cli::run({"tokens", file.toStdString(), "--report"}, out, err), int(cli::Success));
        QCOMPARE(out, std::string("2\n"));
        QVERIFY(err.find("not a transcript") != std::string::npos);
    }

    void cliFailures()
    {
        std::string out, err;
        QCOMPARE(cli::run({"tokens", "/nonexistent/file.txt"}, out, err), int(cli::Failure));
        QVERIFY(err.find("no such file") != std::string::npos);
        out.clear();
        QCOMPARE(cli::run({"tokens", "/nonexistent/file.txt", "--json"}, out, err), int(cli::Failure));
        QVERIFY(nlohmann::json::parse(out).contains("error"));
        QCOMPARE(cli::run({"tokens"}, out, err), int(cli::Failure));
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("a.txt"));
        writeFile(file, "hello");
        QCOMPARE(cli::run({"tokens", file.toStdString(), "--encoding", "p50k"}, out, err), int(cli::Failure));
        // Missing vocabulary: exit 2 naming the fetch script.
        err.clear();
        QCOMPARE(cli::run({"tokens", file.toStdString(), "--vocab-dir", dir.path().toStdString()}, out, err), int(cli::Failure));
        QVERIFY(err.find("scripts/fetch-vocab.sh") != std::string::npos);
    }

    void cliReportOnTranscript()
    {
        CL_REQUIRE(o200k(), "vocabularies missing (scripts/fetch-vocab.sh)");
        QTemporaryDir dir;
        const std::string file = dir.filePath(QStringLiteral("chat.json")).toStdString();
        std::string out, err;
        QCOMPARE(cli::run({"generate", "--format", "openai-chat", "--messages", "40", "--seed", "3", "-o", file}, out, err),
                 int(cli::Success));
        out.clear();
        const int rc = cli::run({"tokens", file, "--report", "--json"}, out, err);
        QVERIFY(rc == cli::Success || rc == cli::Issues);
        const auto j = nlohmann::json::parse(out);
        const auto &tr = j["transcript"];
        QCOMPARE(tr["family"].get<std::string>(), std::string("openai"));
        const auto loaded = loadFile(file);
        QVERIFY(loaded.ok());
        const auto c = tokencount::countTranscript(*loaded.transcript);
        QCOMPARE(tr["tokens"].get<std::int64_t>(), c.total.tokens);
        QCOMPARE(tr["source"].get<std::string>(), std::string(tokencount::sourceName(c.total.source)));
        const auto &rows = j["estimatorError"]["rows"];
        QVERIFY(!rows.empty());
        std::int64_t exact = 0;
        for (const auto &r : rows)
            exact += r["exact"].get<std::int64_t>();
        QCOMPARE(j["estimatorError"]["total"]["exact"].get<std::int64_t>(), exact);
        QVERIFY(exact > 0);
    }

    void cliStdin()
    {
        const QString exe = QStringLiteral(CL_BINARY_DIR "/app/contextlens-cli");
        CL_REQUIRE(QFileInfo::exists(exe), "contextlens-cli not built");
        CL_REQUIRE(o200k(), "vocabularies missing (scripts/fetch-vocab.sh)");
        QProcess p;
        p.start(exe, {QStringLiteral("tokens"), QStringLiteral("-"), QStringLiteral("--json")});
        QVERIFY(p.waitForStarted());
        p.write("hello world");
        p.closeWriteChannel();
        QVERIFY(p.waitForFinished(30000));
        QCOMPARE(p.exitCode(), 0);
        const auto j = nlohmann::json::parse(p.readAllStandardOutput().toStdString());
        QCOMPARE(j["tokens"].get<int>(), 2);
        QCOMPARE(j["bytes"].get<int>(), 11);
    }

    void samples()
    {
        const std::filesystem::path root(CL_SAMPLES_DIR);
        CL_REQUIRE(std::filesystem::is_directory(root) || !o200k(), "samples or vocabularies missing");
        int checked = 0;
        for (const auto &e : std::filesystem::recursive_directory_iterator(root)) {
            if (!e.is_regular_file() || (e.path().extension() != ".jsonl" && e.path().extension() != ".json"))
                continue;
            const auto r = loadFile(e.path().string());
            if (!r.ok() || r.transcript->format == Format::Unknown)
                continue;
            const Transcript &t = *r.transcript;
            const auto c = tokencount::countTranscript(t);
            QCOMPARE(c.messages.size(), t.messages.size());
            QCOMPARE(c.total.tokens, c.measuredPart + c.estimatedPart);
            QVERIFY(c.factor >= tokencount::kMinFactor && c.factor <= tokencount::kMaxFactor);
            if (c.family == tokencount::Family::OpenAI)
                QVERIFY(c.total.source != Count::Measured);
            if (c.lastUsageMessage >= 0) {
                QCOMPARE(c.measuredPart, t.messages[std::size_t(c.lastUsageMessage)].usage->contextTokens());
                QVERIFY(c.total.tokens >= c.measuredPart);
            }
            ++checked;
        }
        QVERIFY(checked > 0);
    }
};

QTEST_GUILESS_MAIN(TestTokenCount)
#include "tst_tokencount.moc"
