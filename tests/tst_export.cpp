// SPDX-License-Identifier: MIT
// Exporting strategy results (core/io/export.h). Claude Code sessions are written the way Claude Code
// writes its own compactions: the original bytes untouched, one compact_boundary chained to the old
// leaf through logicalParentUuid, then the new context as a fresh parentUuid chain. The checks parse
// the written lines themselves (not through the writer's code) and reload the bytes to see what an
// agent resuming the session would see. Also: in-place export and the API formats after reload.
#include "core/io/export.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/io/validity.h"
#include "core/strategies/registry.h"
#include "core/tokens/estimator.h"

#include "test_support.h"

#include <QDir>
#include <QtTest>

#include <map>
#include <set>

using namespace cl;
using namespace cl::strategy;
using nlohmann::json;

namespace {

struct Case {
    std::string name;
    std::shared_ptr<Transcript> t;
    std::int64_t window = 0; // the context window the session was generated for; 0: the model's
};

std::shared_ptr<Transcript> generated(std::size_t messages, std::int64_t window, std::uint64_t seed)
{
    gen::Options o;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 150;
    o.contextWindow = window;
    return loadBytes(gen::generate(o), "generated-" + std::to_string(seed) + ".jsonl").transcript;
}

std::vector<std::string_view> lines(std::string_view s)
{
    std::vector<std::string_view> out;
    while (!s.empty()) {
        const auto nl = s.find('\n');
        out.push_back(s.substr(0, nl));
        s.remove_prefix(nl == std::string_view::npos ? s.size() : nl + 1);
    }
    return out;
}

json parse(std::string_view line)
{
    return json::parse(line.begin(), line.end(), nullptr, false);
}

std::string str(const json &j, const char *key)
{
    const auto it = j.is_object() ? j.find(key) : j.end();
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// parentUuid / logicalParentUuid values naming no uuid of the file ("" when all resolve).
std::multiset<std::string> dangling(std::string_view bytes)
{
    std::set<std::string> uuids;
    std::vector<json> parsed;
    for (const auto l : lines(bytes)) {
        parsed.push_back(parse(l));
        if (const std::string u = str(parsed.back(), "uuid"); !u.empty())
            uuids.insert(u);
    }
    std::multiset<std::string> out;
    for (const auto &j : parsed)
        for (const char *k : {"parentUuid", "logicalParentUuid"})
            if (const std::string p = str(j, k); !p.empty() && !uuids.count(p))
                out.insert(p);
    return out;
}

// Role, kind and every block's content: what a model would be sent.
// A tool id as the strategy's result had it: the export gives the new context's ids a "_cl" + 6 hex
// suffix (core/formats/claudecode/compaction.cpp).
std::string originalToolId(const std::string &id)
{
    const std::size_t at = id.size() >= 9 ? id.size() - 9 : std::string::npos;
    if (at == std::string::npos || id.compare(at, 3, "_cl") != 0
        || id.find_first_not_of("0123456789abcdef", at + 3) != std::string::npos)
        return id;
    return id.substr(0, at);
}

std::string signature(const Message &m)
{
    std::string s = std::string(roleName(m.role)) + (m.kind == MessageKind::CompactSummary ? " summary" : "") + ":";
    for (const auto &b : m.blocks) {
        s += "\n  [" + std::string(blockTypeName(b.type)) + " id=" + originalToolId(b.toolId) + " err=" + (b.isError ? "1" : "0") + "] ";
        if (b.type == BlockType::ToolUse)
            s += b.toolName + " " + b.input.dump();
        s += b.text;
    }
    return s;
}

// A turn of the file's main chain, history before a compaction included.
bool live(const Message &m)
{
    return m.isTurn() && !m.sidechain
           && m.role != Role::System;
}

// The context an agent resumes from: the conversation after the last compact boundary. For a
// result (`fromInserted`): after the last boundary that came from the file, or from the first
// message the strategy inserted when that is earlier (a summary of history before an earlier
// compaction heads the new context).
std::vector<std::string> contextAfterLastBoundary(const Transcript &t, bool fromInserted)
{
    std::size_t start = 0;
    for (std::size_t i = 0; i < t.messages.size(); ++i)
        if (t.messages[i].kind == MessageKind::CompactBoundary && (!fromInserted || !t.messages[i].records.empty()))
            start = i + 1;
    for (std::size_t i = 0; fromInserted && i < start; ++i)
        if (t.messages[i].records.empty() && live(t.messages[i])) {
            start = i;
            break;
        }
    std::vector<std::string> out;
    for (std::size_t i = start; i < t.messages.size(); ++i)
        if (live(t.messages[i]))
            out.push_back(signature(t.messages[i]));
    return out;
}

std::vector<std::string> conversation(const Transcript &t)
{
    std::vector<std::string> out;
    for (const auto &m : t.messages)
        if (live(m))
            out.push_back(signature(m));
    return out;
}

// Index of the first differing entry, or -1.
long firstDifference(const std::vector<std::string> &a, const std::vector<std::string> &b)
{
    for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
        if (a[i] != b[i])
            return long(i);
    return a.size() == b.size() ? -1 : long(std::min(a.size(), b.size()));
}

std::string describeDifference(const std::vector<std::string> &got, const std::vector<std::string> &want, long diff)
{
    if (diff < 0)
        return {};
    const auto at = std::size_t(diff);
    return (std::to_string(got.size()) + " vs " + std::to_string(want.size()) + " messages; first difference at "
            + std::to_string(diff) + ":\n" + (at < got.size() ? got[at] : "-") + "\nexpected:\n"
            + (at < want.size() ? want[at] : "-"))
        .substr(0, 3000);
}

std::multiset<std::string> problems(const Transcript &t)
{
    std::multiset<std::string> out;
    for (const auto &d : t.diagnostics)
        if (d.severity != Diagnostic::Severity::Info)
            out.insert(d.message);
    return out;
}

std::string join(const std::multiset<std::string> &s)
{
    std::string out;
    for (const auto &x : s)
        out += x + "; ";
    return out;
}

// Last uuid of the original's main chain: the last non-sidechain message that has one (a response
// split over lines carries the uuid of its last line).
std::string mainLeaf(const Transcript &t)
{
    for (std::size_t i = t.messages.size(); i-- > 0;)
        if (!t.messages[i].sidechain && !t.messages[i].id.empty() && t.messages[i].kind != MessageKind::Meta)
            return t.messages[i].id;
    return {};
}

struct StrategyCase {
    const char *name;
    bool summary; // inserts a summary
};
constexpr StrategyCase kStrategies[] = {{"claude-code-compact", true}, {"microcompaction", true}, {"auto-compact", true}, {"trim-tools", false}, {"snip", false}, {"claude-code-microcompact", false}};

json paramsFor(const Strategy &s, const std::string &name)
{
    json p = json::object();
    for (const auto &spec : s.params())
        if (spec.name == "force")
            p["force"] = true;
    if (name == "trim-tools")
        p["keepLastToolRounds"] = 0;
    if (name == "snip")
        p["snipMaxChars"] = 400; // generated reads are short; snip them anyway
    return p;
}

} // namespace

class TestExport : public QObject
{
    Q_OBJECT
    std::vector<Case> m_cases;

    const Case *caseNamed(const std::string &n) const
    {
        for (const auto &c : m_cases)
            if (c.name == n)
                return &c;
        return nullptr;
    }

    void addRows(bool samples)
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("strategy");
        QTest::addColumn<bool>("summary");
        for (const auto &c : m_cases) {
            if ((c.name.rfind("sample:", 0) == 0) != samples)
                continue;
            for (const auto &s : kStrategies)
                QTest::newRow((c.name + " " + s.name).c_str()) << QString::fromStdString(c.name) << QString::fromLatin1(s.name) << s.summary;
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        auto plain = generated(200, 200000, 7);
        QVERIFY(plain && plain->messages.size() > 150);
        m_cases.push_back({"generated", plain});
        // A small window makes the generator write compactions of its own: the export must chain
        // onto the last one and resume from the conversation after it.
        // Strategies work on the live context after the last compaction: take a seed whose live part
        // is well over half the auto-compaction threshold of the window the strategies are given (a
        // smaller one than the session was generated with), so that every strategy has work.
        constexpr std::int64_t kWindow = 50000;
        std::shared_ptr<Transcript> compacted;
        for (std::uint64_t seed = 11; seed < 60 && !compacted; ++seed) {
            auto t = generated(400, 100000, seed);
            QVERIFY(t);
            if (liveStart(*t) == 0 || tokens::totalEstimate(*t) < kWindow * 45 / 100)
                continue;
            analysis::AnalysisOptions ao; // auto-compact is the choosiest (a safe cut before the request)
            ao.contextWindow = kWindow;
            if (run(*find("auto-compact"), Input(*t, ao), json::object()).changed)
                compacted = t;
        }
        QVERIFY2(compacted, "no generated session with a compaction and a large live part");
        m_cases.push_back({"generated-compacted", compacted, kWindow});
        const QDir dir(QStringLiteral(CL_SAMPLES_DIR "/claude-code"));
        for (const QString &f : dir.entryList({QStringLiteral("*.jsonl")}, QDir::Files, QDir::Name)) {
            auto r = loadFile(dir.filePath(f).toStdString());
            QVERIFY2(r.transcript && r.transcript->format == Format::ClaudeCode, qPrintable(f));
            m_cases.push_back({"sample:" + f.toStdString(), r.transcript});
        }
    }

    void compactionStyle_data() { addRows(false); }
    void compactionStyle() { checkCompactionStyle(); }
    void compactionStyleSamples_data() { addRows(true); }
    void compactionStyleSamples()
    {
        CL_REQUIRE(QDir(QStringLiteral(CL_SAMPLES_DIR "/claude-code")).exists(), "no samples folder");
        checkCompactionStyle();
    }

    void inPlace_data() { addRows(false); }
    void inPlace() { checkInPlaceAndApi(); }
    void inPlaceSamples_data() { addRows(true); }
    void inPlaceSamples()
    {
        CL_REQUIRE(QDir(QStringLiteral(CL_SAMPLES_DIR "/claude-code")).exists(), "no samples folder");
        checkInPlaceAndApi();
    }

    // No edits: nothing to append, the export is the file itself.
    void unchangedIsOriginal()
    {
        const Case *c = caseNamed("generated");
        QVERIFY(c);
        const Transcript m = unchanged(*c->t).materialize(*c->t);
        const WriteResult w = exportTranscript(m, Format::ClaudeCode);
        QVERIFY(w.ok);
        QVERIFY(w.bytes == *c->t->buffer);
    }

private:
    void checkCompactionStyle();
    void checkInPlaceAndApi();
};

void TestExport::checkCompactionStyle()
{
    QFETCH(QString, file);
    QFETCH(QString, strategy);
    QFETCH(bool, summary);
    const Case *c = caseNamed(file.toStdString());
    QVERIFY(c);
    const Transcript &orig = *c->t;
    const Strategy *s = find(strategy.toStdString());
    QVERIFY(s);
    analysis::AnalysisOptions ao;
    ao.contextWindow = c->window;
    Input in(orig, ao);
    std::string error;
    const Result r = run(*s, in, paramsFor(*s, strategy.toStdString()), {}, &error);
    QVERIFY2(error.empty(), error.c_str());
    const bool isSample = file.startsWith(QLatin1String("sample:"));
    if (!isSample)
        QVERIFY2(r.changed, r.note.c_str()); // generated sessions are made to give every strategy work
    const Transcript m = r.materialize(orig);
    ExportOptions eo;
    const WriteResult w = exportTranscript(m, Format::ClaudeCode, eo);
    QVERIFY2(w.ok, w.error.c_str());
    const std::string &original = *orig.buffer;
    QVERIFY2(w.bytes.compare(0, original.size(), original) == 0, "the original bytes must come first, unchanged");
    if (!m.hasEdits()) {
        // The strategy left this sample alone: the export is the original, byte for byte.
        QCOMPARE(w.bytes.size(), original.size());
        return;
    }

    // ---- The appended lines, read as JSON.
    std::string_view appended = std::string_view(w.bytes).substr(original.size());
    if (!original.empty() && original.back() != '\n') {
        QVERIFY(!appended.empty() && appended.front() == '\n'); // the last line gets its terminator
        appended.remove_prefix(1);
    }
    QVERIFY(!appended.empty() && appended.back() == '\n');
    const auto added = lines(appended);
    QVERIFY(added.size() >= 2);
    std::size_t boundaries = 0;
    std::string previous;
    for (std::size_t k = 0; k < added.size(); ++k) {
        const json j = parse(added[k]);
        QVERIFY2(j.is_object(), std::string(added[k].substr(0, 200)).c_str());
        const bool boundary = str(j, "type") == "system" && str(j, "subtype") == "compact_boundary";
        boundaries += boundary;
        const std::string uuid = str(j, "uuid");
        QVERIFY2(!uuid.empty(), "every appended line has a uuid");
        if (k == 0) {
            QVERIFY2(boundary, "the first appended line is the compact_boundary");
            QVERIFY(j.contains("parentUuid") && j["parentUuid"].is_null());
            QCOMPARE(str(j, "logicalParentUuid"), mainLeaf(orig));
            QVERIFY(j["compactMetadata"].is_object());
            const json &cm = j["compactMetadata"];
            QVERIFY(cm["trigger"].is_string());
            QVERIFY(cm["preTokens"].is_number_integer() && cm["postTokens"].is_number_integer());
            QVERIFY2(cm["preTokens"].get<std::int64_t>() >= cm["postTokens"].get<std::int64_t>(), cm.dump().c_str());
            QVERIFY(cm["postTokens"].get<std::int64_t>() > 0);
        } else {
            QCOMPARE(str(j, "parentUuid"), previous); // one unbroken chain from the boundary
            QVERIFY2(!j.contains("logicalParentUuid") || j["logicalParentUuid"].is_null(), "only the boundary has one");
            QVERIFY(!j.value("isSidechain", false));
        }
        previous = uuid;
    }
    QCOMPARE(boundaries, std::size_t(1));
    // No dangling parent anywhere: the file's own (trimmed fixtures have some) and nothing new.
    QCOMPARE(join(dangling(w.bytes)), join(dangling(original)));

    // ---- Reloaded, the session shows the old history, the boundary and the new context.
    const LoadResult back = loadBytes(w.bytes, orig.path);
    QVERIFY(back.transcript);
    const Transcript &t2 = *back.transcript;
    QCOMPARE(t2.format, Format::ClaudeCode);
    QCOMPARE(join(problems(t2)), join(problems(orig)));
    for (const auto &d : t2.diagnostics)
        QVERIFY2(d.severity != Diagnostic::Severity::Error, d.toString().c_str());
    std::int64_t boundaryAt = -1;
    for (std::size_t i = 0; i < t2.messages.size(); ++i)
        if (t2.messages[i].kind == MessageKind::CompactBoundary)
            boundaryAt = std::int64_t(i);
    QVERIFY(boundaryAt >= 0);
    const Message &nb = t2.messages[std::size_t(boundaryAt)];
    QVERIFY2(nb.line > lines(original).size(), "the last boundary is the appended one");
    // The old history is still all there, in front of it.
    std::vector<std::string> before;
    for (std::size_t i = 0; i < std::size_t(boundaryAt); ++i)
        if (live(t2.messages[i]))
            before.push_back(signature(t2.messages[i]));
    QCOMPARE(before.size(), conversation(orig).size());
    QCOMPARE(firstDifference(before, conversation(orig)), -1L);

    // Claude Code joins lines by message.id and finds results by tool_use_id across the whole file:
    // the new context shares neither with the lines before it.
    std::set<std::string> oldIds;
    for (std::size_t i = 0; i < std::size_t(boundaryAt); ++i) {
        oldIds.insert(t2.messages[i].apiMessageId);
        for (const auto &b : t2.messages[i].blocks)
            oldIds.insert(b.toolId);
    }
    oldIds.erase(std::string());
    for (std::size_t i = std::size_t(boundaryAt) + 1; i < t2.messages.size(); ++i) {
        QVERIFY2(!oldIds.count(t2.messages[i].apiMessageId), t2.messages[i].apiMessageId.c_str());
        for (const auto &b : t2.messages[i].blocks)
            QVERIFY2(b.toolId.empty() || !oldIds.count(b.toolId), b.toolId.c_str());
    }
    const std::vector<std::string> got = contextAfterLastBoundary(t2, false);
    const std::vector<std::string> want = contextAfterLastBoundary(m, true);
    const long diff = firstDifference(got, want);
    QVERIFY2(diff < 0, describeDifference(got, want, diff).c_str());
    bool summaryAfter = false;
    for (std::size_t i = std::size_t(boundaryAt) + 1; i < t2.messages.size(); ++i)
        summaryAfter = summaryAfter || t2.messages[i].kind == MessageKind::CompactSummary;
    if (summary)
        QVERIFY2(summaryAfter, "the new context holds the summary as an isCompactSummary line");
    if (strategy == QLatin1String("claude-code-compact")) {
        // Claude Code's own shape: the summary is the first line after the boundary.
        std::size_t first = std::size_t(boundaryAt) + 1;
        while (first < t2.messages.size() && !live(t2.messages[first]))
            ++first;
        QVERIFY(first < t2.messages.size());
        QCOMPARE(t2.messages[first].kind, MessageKind::CompactSummary);
    }

    // Validity: nothing the original did not already have.
    auto reasons = [](const std::vector<Violation> &v) {
        std::multiset<std::string> out;
        for (const auto &x : v)
            out.insert(x.reason);
        return out;
    };
    QCOMPARE(join(reasons(validate(t2, Format::ClaudeCode))), join(reasons(validate(orig, Format::ClaudeCode))));
}

void TestExport::checkInPlaceAndApi()
{
    QFETCH(QString, file);
    QFETCH(QString, strategy);
    QFETCH(bool, summary);
    Q_UNUSED(summary);
    const Case *c = caseNamed(file.toStdString());
    QVERIFY(c);
    const Transcript &orig = *c->t;
    const Strategy *s = find(strategy.toStdString());
    QVERIFY(s);
    Input in(orig);
    const Result r = run(*s, in, paramsFor(*s, strategy.toStdString()));
    const Transcript m = r.materialize(orig);
    if (!r.changed) {
        // Nothing to place: the in-place export of an untouched sample is the original bytes.
        ExportOptions unchanged;
        unchanged.compactionStyle = false;
        QCOMPARE(exportTranscript(m, Format::ClaudeCode, unchanged).bytes, *orig.buffer);
        return;
    }

    // In place: untouched lines stay, edited ones are rewritten where they were.
    ExportOptions eo;
    eo.compactionStyle = false;
    const WriteResult w = exportTranscript(m, Format::ClaudeCode, eo);
    QVERIFY2(w.ok, w.error.c_str());
    QVERIFY(w.bytes != *orig.buffer);
    // Every line of a message the strategy left alone is still there: byte for byte, or with only
    // its parentUuid re-pointed past removed lines (the writer keeps the chain whole).
    auto unchained = [](std::string_view l) {
        nlohmann::ordered_json j = nlohmann::ordered_json::parse(l.begin(), l.end(), nullptr, false);
        if (j.is_object()) {
            j.erase("parentUuid");
            j.erase("logicalParentUuid");
        }
        return j.dump();
    };
    std::multiset<std::string_view> written;
    std::multiset<std::string> writtenUnchained;
    for (const auto l : lines(w.bytes)) {
        written.insert(l);
        writtenUnchained.insert(unchained(l));
    }
    for (const auto &msg : m.messages)
        if (!msg.edited)
            for (const std::uint32_t rec : msg.records) {
                std::string_view l = orig.recordBytes(orig.records[rec]);
                while (!l.empty() && (l.back() == '\n' || l.back() == '\r'))
                    l.remove_suffix(1);
                QVERIFY2(written.count(l) || writtenUnchained.count(unchained(l)), std::string(l.substr(0, 200)).c_str());
            }
    const LoadResult back = loadBytes(w.bytes, orig.path);
    QVERIFY(back.transcript);
    QCOMPARE(back.transcript->format, Format::ClaudeCode);
    for (const auto &d : back.transcript->diagnostics)
        QVERIFY2(d.severity != Diagnostic::Severity::Error, d.toString().c_str());
    const auto got = conversation(*back.transcript);
    const auto want = conversation(m);
    const long diff = firstDifference(got, want);
    QVERIFY2(diff < 0, describeDifference(got, want, diff).c_str());

    // API formats: the result converted, reloaded as that format, is a valid request — at least as
    // valid as the unchanged original converted the same way (samples may carry orphans).
    for (Format f : {Format::Anthropic, Format::OpenAIChat, Format::OpenAIResponses, Format::Gemini}) {
        const std::string where = std::string(formatName(f)) + ": ";
        const WriteResult api = exportTranscript(m, f);
        QVERIFY2(api.ok, (where + api.error).c_str());
        LoadOptions lo;
        lo.format = f;
        const LoadResult rl = loadBytes(api.bytes, "export." + std::string(formatName(f)), lo);
        QVERIFY2(rl.transcript, (where + rl.error).c_str());
        for (const auto &d : rl.transcript->diagnostics)
            QVERIFY2(d.severity != Diagnostic::Severity::Error, (where + d.toString()).c_str());
        const auto v = validate(*rl.transcript, f);
        std::string text;
        for (const auto &x : v)
            text += "[" + std::to_string(x.message) + "] " + x.reason + "; ";
        if (!v.empty()) {
            const auto baseline = validateConverted(orig, f);
            QVERIFY2(v.size() <= baseline.size(), (where + text).substr(0, 2000).c_str());
        }
    }
}

QTEST_GUILESS_MAIN(TestExport)
#include "tst_export.moc"
