// SPDX-License-Identifier: MIT
// Reports and Markdown (core/report/report.h, `contextlens-cli report` / `export-markdown`): the HTML
// is well formed, self-contained and carries the engine's own figures (compose, auditCompactions,
// compare, run); transcript text is escaped; the usage chart has one point per message with a
// figure; the Markdown export has a heading per message, folded tool results and the truncation
// note; the CLI writes, refuses to overwrite and reports in JSON; headless Chromium renders the page.
#include "core/io/loader.h"
#include "core/report/report.h"
#include "core/report/reportdata.h"
#include "core/report/textformat.h"
#include "core/strategies/registry.h"
#include "core/tokens/estimator.h"
#include "core/workflow/audit.h"
#include "core/workflow/compare.h"
#include "core/workflow/composition.h"

#include "report_checks.h"
#include "report_fixture.h"
#include "test_support.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace cl;
using cl::test::figure;

namespace {

const std::vector<std::string> kSome = {"trim-tools", "claude-code-compact", "sliding-window"};

std::shared_ptr<Transcript> generated(Format f, std::size_t messages, std::uint64_t seed, std::int64_t window = 200000)
{
    gen::Options o;
    o.format = f;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 300;
    o.contextWindow = window;
    return loadBytes(gen::generate(o), "generated.jsonl", LoadOptions{}).transcript;
}

void checkSelfContained(const std::string &html)
{
    const std::string problems = cl::test::htmlProblems(html);
    QVERIFY2(problems.empty(), problems.c_str());
    QVERIFY(html.rfind("<!DOCTYPE html>", 0) == 0);
    QVERIFY(html.find("<script") == std::string::npos);
    for (const char *element : {"<img", "<iframe", "<link", "<object", "<embed", "<video", "<audio", "<script"})
        QVERIFY2(html.find(element) == std::string::npos, element);
    QVERIFY(html.find(" src=\"") == std::string::npos);
    QVERIFY(html.find("href=\"http") == std::string::npos);
    QVERIFY(html.find("url(") == std::string::npos);
    QVERIFY(html.find("@import") == std::string::npos);
    QVERIFY(html.find("prefers-color-scheme: dark") != std::string::npos);
}

// The figures of the report are the engine's: compose(), auditCompactions(), compare().
void checkFigures(const Transcript &t, const std::string &html, const std::vector<std::string> &names)
{
    const composition::Composition c = composition::compose(t);
    QCOMPARE(figure(html, "live-context"), report::grouped(c.total));
    QCOMPARE(figure(html, "window"), report::grouped(c.window));
    const auto list = audit::auditCompactions(t, audit::Options{names, {}, 1});
    QCOMPARE(cl::test::occurrences(html, "<div class=\"compaction\" data-message="), list.size());
    for (const audit::Compaction &a : list) {
        const std::string scope = cl::test::scopeOf(html, "<div class=\"compaction\" data-message=\"" + std::to_string(a.boundary + 1) + "\"", "</table>");
        QVERIFY(!scope.empty());
        QCOMPARE(figure(scope, "tokens-before"), report::grouped(a.tokensBefore));
        QCOMPARE(figure(scope, "tokens-after"), report::grouped(a.tokensAfter));
        QVERIFY(figure(scope, "facts-kept").rfind(std::to_string(a.kept.size()) + "/" + std::to_string(a.factsTotal()) + " ", 0) == 0);
    }
    strategy::CompareOptions co;
    co.names = names;
    const strategy::Input in(t);
    const std::string table = cl::test::scopeOf(html, "<section id=\"compare\">", "</section>");
    for (const strategy::CompareRow &row : strategy::compare(in, co)) {
        const std::string scope = cl::test::scopeOf(table, "<tr data-strategy=\"" + row.strategy + "\"", "</tr>");
        QVERIFY2(!scope.empty(), row.strategy.c_str());
        const strategy::Stats &s = row.result.stats;
        QCOMPARE(figure(scope, "tokens-before"), report::grouped(s.tokensBefore));
        QCOMPARE(figure(scope, "tokens-after"), report::grouped(s.tokensAfter));
        QCOMPARE(figure(scope, "reduction"), report::percent(s.reduction));
        QVERIFY(figure(scope, "facts").rfind(std::to_string(s.factsKept) + "/" + std::to_string(s.factsTotal) + " ", 0) == 0);
        QVERIFY(figure(scope, "cache").rfind(report::grouped(s.cachePrefixTokens) + " ", 0) == 0);
        QCOMPARE(scope.find("class=\"ok\">valid<") != std::string::npos, row.result.violations.empty());
    }
}

} // namespace

class TestReport : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::string path(const std::string &name) const { return m_dir.filePath(QString::fromStdString(name)).toStdString(); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void textHelpers()
    {
        QCOMPARE(report::htmlEscape("<a href=\"x\">&'</a>"), std::string("&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"));
        QCOMPARE(report::htmlEscape(std::string("a\x01"
                                                "b\xff",
                                                4)),
                 std::string("a\xEF\xBF\xBD"
                             "b\xEF\xBF\xBD"));
        QCOMPARE(report::markdownText("<b>x</b> `<i>` &"), std::string("&lt;b>x&lt;/b> `<i>` &amp;\n"));
        QCOMPARE(report::markdownText("```\n<b>\n"), std::string("```\n<b>\n```\n")); // left open: closed
        QCOMPARE(report::markdownInline("a|b *c* #1\nd"), std::string("a\\|b \\*c\\* \\#1 d"));
        QCOMPARE(report::markdownFence("x ``` y"), std::string("````\nx ``` y\n````\n"));
        QCOMPARE(report::grouped(-1234567), std::string("-1,234,567"));
        QCOMPARE(report::shortTokens(150000), std::string("150k"));
        QCOMPARE(std::string(report::utf8Prefix("h\u00e9llo", 2)), std::string("h\u00e9"));
        QVERIFY(report::reportFormatForPath("a/b.HTML") == report::ReportFormat::Html);
        QVERIFY(report::reportFormatForPath("b.md") == report::ReportFormat::Markdown);
        QVERIFY(!report::reportFormatForPath("b.txt"));
        QVERIFY(!report::reportFormatForPath("dir.md/file"));
    }

    void markdownTranscriptStructure_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("claude-code") << int(Format::ClaudeCode);
        QTest::newRow("codex") << int(Format::Codex);
        QTest::newRow("gemini-cli") << int(Format::GeminiCli);
        QTest::newRow("anthropic") << int(Format::Anthropic);
    }
    void markdownTranscriptStructure()
    {
        QFETCH(int, format);
        const auto t = generated(Format(format), 90, 7, 40000);
        QVERIFY(t);
        report::MarkdownOptions o;
        o.maxResultChars = 300;
        const std::string md = report::markdownTranscript(*t, o);
        const auto lines = cl::test::markdownLines(md);
        QVERIFY(!lines.fenceOpen);
        // One heading per message (Meta lines left out by default), numbered by transcript index, in order.
        std::vector<std::size_t> expected, got;
        std::size_t results = 0, cut = 0, boundaries = 0;
        for (std::size_t i = 0; i < t->messages.size(); ++i) {
            const Message &m = t->messages[i];
            if (m.kind == MessageKind::Meta)
                continue;
            expected.push_back(i + 1);
            boundaries += m.kind == MessageKind::CompactBoundary;
            for (const Block &b : m.blocks)
                if (b.type == BlockType::ToolResult) {
                    ++results;
                    cut += report::utf8Length(b.text) > o.maxResultChars;
                } else if (b.type == BlockType::ToolUse) { // inputs are cut the same way (Write contents)
                    cut += report::utf8Length(b.input.is_string() ? b.input.get<std::string>() : b.input.dump(2, ' ', false, json::error_handler_t::replace)) > o.maxResultChars;
                }
        }
        const QRegularExpression heading(QStringLiteral("^### (\\d+) \u00b7 "));
        for (const std::string &l : lines.outside)
            if (const auto m = heading.match(QString::fromStdString(l)); m.hasMatch())
                got.push_back(m.captured(1).toULongLong());
        QCOMPARE(got, expected);
        QVERIFY(results > 0);
        QCOMPARE(cl::test::occurrences(md, "<details><summary>Result: ") + cl::test::occurrences(md, "<details><summary>Error: "), results);
        QCOMPARE(cl::test::occurrences(md, "\n*Truncated: the first 300 of "), cut);
        QCOMPARE(cl::test::occurrences(md, "> **Compaction.**"), boundaries);
        QCOMPARE(md.find("## History (before the last compaction)") != std::string::npos, liveStart(*t) > 0);
        QVERIFY(md.find("- Live context: " + report::grouped(composition::compose(*t).total) + " tokens") != std::string::npos);
    }

    void markdownTranscriptEscapes()
    {
        const auto t = loadBytes(cl::test::hostileSession(), "hostile.jsonl", LoadOptions{}).transcript;
        QVERIFY(t);
        report::MarkdownOptions o;
        o.maxResultChars = 100;
        const std::string md = report::markdownTranscript(*t, o);
        const auto lines = cl::test::markdownLines(md);
        QVERIFY(!lines.fenceOpen);
        std::string outside;
        for (const auto &l : lines.outside)
            outside += l + "\n";
        // Outside code, no tag survives: the request's <script> shows as text.
        QVERIFY(md.find("&lt;script>alert(1)&lt;/script> please fix /src/a.py") != std::string::npos);
        QVERIFY(outside.find("<script") == std::string::npos);
        QVERIFY(outside.find("<img") == std::string::npos);
        QVERIFY(md.find("<details><summary>Read /src/&lt;b&gt;x&lt;/b&gt;.py</summary>") != std::string::npos);
        QVERIFY(md.find("<details><summary>Result: Read /src/&lt;b&gt;x&lt;/b&gt;.py (") != std::string::npos);
        QVERIFY(md.find("*Truncated: the first 100 of ") != std::string::npos);
        QVERIFY(md.find("line 50 of the parser") == std::string::npos); // past the cut
        QVERIFY(md.find("<details><summary>Thinking (12 characters)</summary>") != std::string::npos);
        QVERIFY(md.find("go on &amp; finish &lt;it>") != std::string::npos);
        QVERIFY(md.find("`<ok>`") != std::string::npos); // code spans as written
        QVERIFY(md.find("## History (before the last compaction)") < md.find("## Live context"));
        o.thinking = false;
        o.history = false;
        const std::string live = report::markdownTranscript(*t, o);
        QVERIFY(live.find("Thinking (") == std::string::npos);
        QVERIFY(live.find("## History") == std::string::npos);
        QVERIFY(live.find("please fix") == std::string::npos);
    }

    void htmlReportGenerated_data()
    {
        QTest::addColumn<int>("format");
        QTest::newRow("claude-code") << int(Format::ClaudeCode);
        QTest::newRow("codex") << int(Format::Codex);
        QTest::newRow("gemini-cli") << int(Format::GeminiCli);
        QTest::newRow("openai-chat") << int(Format::OpenAIChat);
    }
    void htmlReportGenerated()
    {
        QFETCH(int, format);
        const auto t = generated(Format(format), 120, 5, 40000);
        QVERIFY(t);
        report::ReportOptions o;
        o.strategies = kSome;
        o.previewStrategy = "claude-code-compact";
        const std::string html = report::htmlReport(*t, o);
        checkSelfContained(html);
        checkFigures(*t, html, kSome);
        // The usage chart: a point per message with a figure, a marker per compaction.
        const report::UsageSeries u = report::usageSeries(*t, 0);
        QCOMPARE(cl::test::seriesPoints(html, "estimated"), composition::overTime(*t).messages.size());
        QCOMPARE(cl::test::seriesPoints(html, "measured"), tokens::measuredContext(*t).size());
        QCOMPARE(cl::test::occurrences(html, "<line class=\"compaction\""), audit::compactionBoundaries(*t).size());
        if (!u.estimated.empty())
            QCOMPARE(u.estimated.back().tokens, composition::compose(*t, u.estimated.back().message).total);
        // The preview is strategy::run's result.
        const strategy::Input in(*t);
        const strategy::Result r = strategy::run(*strategy::find("claude-code-compact"), in);
        const std::string preview = cl::test::scopeOf(html, "<section id=\"preview\">", "</section>");
        QCOMPARE(figure(preview, "tokens-after"), report::grouped(r.stats.tokensAfter));
        QCOMPARE(cl::test::occurrences(preview, "<tr data-fate="), std::min<std::size_t>(report::fateRows(*t, r).size(), o.maxPreviewRows));
        // The composition bar has a rect per non-empty category.
        std::size_t nonEmpty = 0;
        for (const auto &cat : composition::compose(*t).categories)
            nonEmpty += cat.tokens > 0;
        QCOMPARE(cl::test::occurrences(html, "\" data-category=\""), nonEmpty);
    }

    void htmlReportDefaultStrategies()
    {
        // Every strategy in the compare table, the audit's default rows.
        const auto t = generated(Format::ClaudeCode, 60, 3, 30000);
        QVERIFY(t);
        const std::string html = report::htmlReport(*t);
        checkSelfContained(html);
        QCOMPARE(cl::test::occurrences(cl::test::scopeOf(html, "<section id=\"compare\">", "</section>"), "<tr data-strategy="),
                 strategy::all().size());
        QVERIFY(html.find("<section id=\"preview\">") == std::string::npos);
        report::ReportOptions none;
        none.strategies = std::vector<std::string>{};
        QVERIFY(report::htmlReport(*t, none).find("<section id=\"compare\">") == std::string::npos);
    }

    void htmlReportEscapes()
    {
        const auto t = loadBytes(cl::test::hostileSession(), "hostile.jsonl", LoadOptions{}).transcript;
        QVERIFY(t);
        report::ReportOptions o;
        o.strategies = kSome;
        o.title = "<script>alert(1)</script>";
        const std::string html = report::htmlReport(*t, o);
        checkSelfContained(html);
        QVERIFY(html.find("<title>ContextLens report: &lt;script&gt;alert(1)&lt;/script&gt;</title>") != std::string::npos);
        // The request and the path reach the page as facts of the compaction, escaped.
        QVERIFY(html.find("&lt;script&gt;alert(1)&lt;/script&gt; please fix /src/a.py") != std::string::npos);
        QVERIFY(html.find("/src/&lt;b&gt;x&lt;/b&gt;.py") != std::string::npos);
        QVERIFY(html.find("<img") == std::string::npos);
        checkFigures(*t, html, kSome);
        QCOMPARE(figure(cl::test::scopeOf(html, "<div class=\"compaction\" data-message=\"5\"", "</table>"), "tokens-before"), std::string("12,345"));
        QCOMPARE(figure(html, "measured"), report::grouped(tokens::measuredContext(*t).back().measured));
    }

    void emptyTranscript()
    {
        Transcript t;
        t.format = Format::Anthropic;
        const std::string html = report::htmlReport(t);
        checkSelfContained(html);
        QCOMPARE(cl::test::seriesPoints(html, "estimated"), std::size_t(0));
        QVERIFY(html.find("No compaction in this session.") != std::string::npos);
        QVERIFY(!report::markdownReport(t).empty());
        QVERIFY(report::markdownTranscript(t).rfind("# Transcript: session\n", 0) == 0);
    }

    void markdownReportSections()
    {
        const auto t = generated(Format::ClaudeCode, 120, 5, 40000);
        QVERIFY(t);
        report::ReportOptions o;
        o.strategies = kSome;
        o.previewStrategy = "trim-tools";
        const std::string md = report::markdownReport(*t, o);
        QVERIFY(!cl::test::markdownLines(md).fenceOpen);
        for (const char *section : {"## Figures", "## Context over the session", "## Where the context goes", "## Compactions",
                                    "## Strategies compared", "## Preview: trim-tools"})
            QVERIFY2(md.find(section) != std::string::npos, section);
        QVERIFY(md.find("| Live context | " + report::grouped(composition::compose(*t).total) + " tokens") != std::string::npos);
        const auto list = audit::auditCompactions(*t, audit::Options{kSome, {}, 1});
        QCOMPARE(cl::test::occurrences(md, "\n### Compaction "), list.size());
        for (const auto &c : list)
            QVERIFY(md.find("- Tokens before: " + report::grouped(c.tokensBefore)) != std::string::npos);
        for (const std::string &name : kSome)
            QVERIFY(md.find("\n| " + report::markdownInline(name) + " | ") != std::string::npos);
        QCOMPARE(report::renderReport(*t, o, report::ReportFormat::Markdown), md);
    }

    void samples()
    {
        CL_REQUIRE_SAMPLES();
        const QStringList files = {QStringLiteral("claude-code/fixture-compaction.jsonl"), QStringLiteral("claude-code/viewer-sample-edits.jsonl"),
                                   QStringLiteral("claude-code/viewer-sample-small.jsonl"), QStringLiteral("codex/fixture-rollout.jsonl"),
                                   QStringLiteral("gemini/fixture-session.jsonl"), QStringLiteral("gemini/fixture-legacy.json")};
        for (const QString &f : files) {
            const auto t = loadFile(QStringLiteral(CL_SAMPLES_DIR "/%1").arg(f).toStdString()).transcript;
            QVERIFY2(t && !t->messages.empty(), qPrintable(f));
            report::ReportOptions o;
            o.strategies = kSome;
            o.previewStrategy = "sliding-window";
            const std::string html = report::htmlReport(*t, o);
            checkSelfContained(html);
            checkFigures(*t, html, kSome);
            QCOMPARE(cl::test::seriesPoints(html, "measured"), tokens::measuredContext(*t).size());
            const std::string md = report::markdownTranscript(*t);
            QVERIFY2(!cl::test::markdownLines(md).fenceOpen, qPrintable(f));
            QVERIFY(!report::markdownReport(*t, o).empty());
        }
    }

    void cli()
    {
        const std::string in = path("cli-session.jsonl");
        gen::Options g;
        g.messages = 80;
        g.seed = 9;
        g.maxReadLines = 200;
        g.contextWindow = 40000;
        cl::test::writeFile(in, gen::generate(g));
        const std::string html = path("out.html");
        auto r = cl::test::runCli({"report", in, "-o", html, "--strategies", "trim-tools,sliding-window", "--preview", "trim-tools", "--json"});
        QVERIFY2(r.code == 0, r.err.c_str());
        const std::string bytes = cl::test::readFile(html);
        checkSelfContained(bytes);
        const json j = json::parse(r.out);
        QCOMPARE(j["output"].get<std::string>(), html);
        QCOMPARE(j["format"].get<std::string>(), std::string("html"));
        QCOMPARE(j["bytes"].get<std::size_t>(), bytes.size());
        QCOMPARE(j["preview"].get<std::string>(), std::string("trim-tools"));
        // Never over an existing file without --force, never over the input.
        r = cl::test::runCli({"report", in, "-o", html});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.find("already exists") != std::string::npos);
        QCOMPARE(cl::test::readFile(html), bytes);
        QCOMPARE(cl::test::runCli({"report", in, "-o", html, "--force", "--strategies", "none"}).code, 0);
        QVERIFY(cl::test::readFile(html).find("<section id=\"compare\">") == std::string::npos);
        QCOMPARE(cl::test::runCli({"report", in, "-o", in, "--to", "html"}).code, 2);
        QCOMPARE(cl::test::runCli({"report", in, "-o", path("out.txt")}).code, 2);
        QCOMPARE(cl::test::runCli({"report", in, "-o", path("x.html"), "--preview", "no-such"}).code, 2);
        QCOMPARE(cl::test::runCli({"report", in, "-o", path("x.html"), "--strategies", "a,b"}).code, 2);
        r = cl::test::runCli({"report", in, "-o", path("out.md"), "--strategies", "none"});
        QCOMPARE(r.code, 0);
        QVERIFY(cl::test::readFile(path("out.md")).rfind("# ContextLens report: ", 0) == 0);
        r = cl::test::runCli({"report", in, "-o", "-", "--to", "markdown", "--strategies", "none"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.rfind("# ContextLens report: ", 0) == 0);
        QVERIFY(r.err.find("wrote (standard output)") != std::string::npos);

        const std::string md = path("transcript.md");
        r = cl::test::runCli({"export-markdown", in, "-o", md, "--max-result-chars", "200", "--json"});
        QVERIFY2(r.code == 0, r.err.c_str());
        const json e = json::parse(r.out);
        QCOMPARE(e["bytes"].get<std::size_t>(), cl::test::readFile(md).size());
        const auto t = loadFile(in).transcript;
        report::MarkdownOptions mo;
        mo.maxResultChars = 200;
        QCOMPARE(cl::test::readFile(md), report::markdownTranscript(*t, mo));
        QCOMPARE(cl::test::runCli({"export-markdown", in, "-o", md}).code, 2);
        QCOMPARE(cl::test::runCli({"export-markdown", in, "-o", md, "--force", "--no-thinking"}).code, 0);
        const json help = json::parse(cl::test::runCli({"help", "--json"}).out);
        const auto &commands = help["commands"];
        QVERIFY(std::find(commands.begin(), commands.end(), "report") != commands.end());
        QVERIFY(std::find(commands.begin(), commands.end(), "export-markdown") != commands.end());
        QVERIFY(cl::test::runCli({"report", "--help"}).out.find("Usage: contextlens-cli report") == 0);
    }

    // The page in a real browser: Debian's headless Chromium takes a screenshot, which shows the
    // charts in their colours where they belong.
    void chromiumScreenshot()
    {
        const std::string browser = cl::test::chromium();
        CL_REQUIRE(!browser.empty(), "chromium");
        const auto t = generated(Format::ClaudeCode, 120, 5, 40000);
        QVERIFY(t);
        report::ReportOptions o;
        o.strategies = kSome;
        const std::string html = path("browser.html");
        cl::test::writeFile(html, report::htmlReport(*t, o));
        auto shoot = [&](const std::string &png, bool dark) {
            QProcess p;
            QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
            env.insert(QStringLiteral("HOME"), m_dir.path());
            p.setProcessEnvironment(env);
            QStringList args = {QStringLiteral("--headless"), QStringLiteral("--no-sandbox"), QStringLiteral("--disable-gpu"),
                                QStringLiteral("--disable-dev-shm-usage"), QStringLiteral("--no-first-run"), QStringLiteral("--hide-scrollbars"),
                                QStringLiteral("--force-color-profile=srgb"), QStringLiteral("--user-data-dir=") + m_dir.filePath(QStringLiteral("profile")),
                                QStringLiteral("--window-size=1200,900"), QStringLiteral("--screenshot=") + QString::fromStdString(png)};
            if (dark)
                args << QStringLiteral("--force-dark-mode") << QStringLiteral("--blink-settings=preferredColorScheme=0");
            args << QUrl::fromLocalFile(QString::fromStdString(html)).toString();
            p.start(QString::fromStdString(browser), args);
            QVERIFY(p.waitForFinished(120000));
            QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        };
        const std::string light = path("browser.png");
        shoot(light, false);
        if (QTest::currentTestFailed())
            return;
        QImage img(QString::fromStdString(light));
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), QSize(1200, 900));
        img = img.convertToFormat(QImage::Format_RGB32);
        QCOMPARE(img.pixel(2, 2), qRgb(255, 255, 255)); // the light scheme's page
        // Both lines of the usage chart drawn across the page, the compaction markers, the context map
        // as a band of priority colours.
        const cl::test::ColourHits measured = cl::test::hits(img, qRgb(0x1f, 0x6f, 0xd1)), estimated = cl::test::hits(img, qRgb(0xe8, 0x71, 0x0a));
        const cl::test::ColourHits compaction = cl::test::hits(img, qRgb(0xc5, 0x22, 0x1f));
        QVERIFY2(measured.count > 200 && measured.box.width() > 600, qPrintable(QString::number(measured.count)));
        QVERIFY2(estimated.count > 200 && estimated.box.width() > 600, qPrintable(QString::number(estimated.count)));
        QVERIFY(compaction.count > 20);
        QRect map;
        int priorities = 0;
        for (const QRgb c : {qRgb(0x7d, 0x4b, 0xbe), qRgb(0xd7, 0x32, 0x32), qRgb(0xf0, 0x8c, 0x28), qRgb(0xeb, 0xcd, 0x46), qRgb(0x8c, 0xb9, 0xe6), qRgb(0xc8, 0xcb, 0xd0)}) {
            const cl::test::ColourHits h = cl::test::hits(img, c, 4);
            if (h.count > 50 && h.box.height() <= 60) {
                ++priorities;
                map = map.united(h.box);
            }
        }
        QVERIFY2(priorities >= 2, qPrintable(QString::number(priorities)));
        QVERIFY(map.width() > 600);
        QVERIFY(map.bottom() < measured.box.top()); // the map above the chart
        const std::string dark = path("browser-dark.png");
        shoot(dark, true);
        if (QTest::currentTestFailed())
            return;
        const QImage night = QImage(QString::fromStdString(dark)).convertToFormat(QImage::Format_RGB32);
        QCOMPARE(night.pixel(2, 2), qRgb(0x17, 0x19, 0x1d)); // the dark scheme's page
        QVERIFY(cl::test::hits(night, qRgb(0x6a, 0xa6, 0xf0)).count > 200);
    }
};

QTEST_GUILESS_MAIN(TestReport)
#include "tst_report.moc"
