// SPDX-License-Identifier: MIT
// The strategy engine as a whole: parameters, the driver's guards and metrics, and the property
// test that runs every registered strategy over generated transcripts of every format and checks
// that each result is consistent, valid in its format, respects pins and exemptions, and writes
// back and reloads.
#include "core/workflow/compare.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/strategy/editor.h"
#include "core/tokens/estimator.h"
#include "core/io/validity.h"
#include "core/io/writer.h"
#include "core/strategies/registry.h"

#include "write_paths.h"

#include <QtTest>

#include <random>
#include <set>

using namespace cl;
using namespace cl::strategy;

namespace {

std::shared_ptr<Transcript> generated(Format f, std::size_t messages, std::uint64_t seed)
{
    gen::Options o;
    o.format = f;
    o.messages = messages;
    o.seed = seed;
    o.maxReadLines = 120;
    o.contextWindow = 60000; // small window: usage triggers fire on small files
    std::string err;
    std::string bytes = gen::generate(o, nullptr, &err);
    LoadOptions lo;
    lo.format = f;
    auto r = loadBytes(std::move(bytes), "generated." + std::string(formatName(f)), lo);
    return r.transcript;
}

std::string describe(const std::vector<Violation> &v)
{
    std::string out;
    for (std::size_t i = 0; i < v.size() && i < 3; ++i)
        out += "[" + std::to_string(v[i].message) + "] " + v[i].reason + "; ";
    return out;
}

} // namespace

class TestStrategies : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void registryIsWellFormed();
    void paramsResolveAndReject();
    void trimToolsByHand();
    void pinnedAndExemptAreRespected();
    void refusesLargerResult();
    void metricsFactRetentionAndCachePrefix();
    void everyStrategyOverEveryFormat_data();
    void everyStrategyOverEveryFormat();
    void compareRunsEverything();
};

void TestStrategies::registryIsWellFormed()
{
    QVERIFY(!all().empty());
    std::set<std::string> names;
    for (const Strategy *s : all()) {
        const std::string name(s->name());
        QVERIFY2(names.insert(name).second, ("duplicate strategy name " + name).c_str());
        QVERIFY2(!s->title().empty() && !s->description().empty() && !s->source().empty(), name.c_str());
        QCOMPARE(find(name), s);
        Params p;
        std::string err;
        // Every default must satisfy its own spec.
        QVERIFY2(resolveParams(s->params(), nlohmann::json::object(), p, err), (name + ": " + err).c_str());
        for (const auto &spec : s->params()) {
            QVERIFY2(!spec.help.empty(), (name + "." + spec.name + " has no help").c_str());
            QVERIFY2(p.values.contains(spec.name), spec.name.c_str());
        }
    }
    QVERIFY(find("no-such-strategy") == nullptr);
}

void TestStrategies::paramsResolveAndReject()
{
    const std::vector<ParamSpec> specs{
        {"n", ParamSpec::Type::Int, 0, 10, 3, {}, "count"},
        {"r", ParamSpec::Type::Double, 0, 1, 0.5, {}, "ratio"},
        {"b", ParamSpec::Type::Bool, 0, 0, false, {}, "flag"},
        {"c", ParamSpec::Type::Choice, 0, 0, "first", {"first", "last"}, "choice"},
        {"l", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array(), {}, "list"},
    };
    Params p;
    std::string err;
    nlohmann::json given = nlohmann::json::object();
    QVERIFY(parseAssignment("n=7", given, err));
    QVERIFY(parseAssignment("b=true", given, err));
    QVERIFY(parseAssignment("l=Read, Bash ,Grep", given, err));
    QVERIFY(parseAssignment("c=last", given, err));
    QVERIFY(resolveParams(specs, given, p, err));
    QCOMPARE(p.integer("n"), 7);
    QCOMPARE(p.number("r"), 0.5);
    QVERIFY(p.flag("b"));
    QCOMPARE(p.string("c"), std::string("last"));
    QCOMPARE(p.list("l"), (std::vector<std::string>{"Read", "Bash", "Grep"}));

    auto rejects = [&](nlohmann::json g, const char *needle) {
        Params q;
        std::string e;
        const bool ok = resolveParams(specs, g, q, e);
        return !ok && e.find(needle) != std::string::npos;
    };
    QVERIFY(rejects({{"n", "11"}}, "out of range"));
    QVERIFY(rejects({{"n", "2.5"}}, "integer"));
    QVERIFY(rejects({{"n", "abc"}}, "not a number"));
    QVERIFY(rejects({{"b", "maybe"}}, "true or false"));
    QVERIFY(rejects({{"c", "middle"}}, "one of first, last"));
    QVERIFY(rejects({{"zzz", 1}}, "unknown parameter 'zzz'"));
    QVERIFY(!parseAssignment("novalue", given, err));
}

void TestStrategies::trimToolsByHand()
{
    // system, user, [assistant+call, result] x3, assistant text
    Transcript t;
    t.format = Format::OpenAIChat;
    auto add = [&](Role r, std::string text) {
        Message m = makeTextMessage(r, std::move(text));
        m.edited = false;
        t.messages.push_back(std::move(m));
    };
    add(Role::System, "You are a helpful agent.");
    add(Role::User, "Please look at the three files.");
    for (int k = 0; k < 3; ++k) {
        Message a;
        a.role = Role::Assistant;
        Block call;
        call.type = BlockType::ToolUse;
        call.toolId = "call_" + std::to_string(k);
        call.toolName = "read_file";
        call.input = {{"path", "/src/f" + std::to_string(k) + ".cpp"}};
        a.blocks.push_back(call);
        t.messages.push_back(a);
        Message res;
        res.role = Role::Tool;
        Block rb;
        rb.type = BlockType::ToolResult;
        rb.toolId = call.toolId;
        rb.text = std::string(400, char('a' + k));
        res.blocks.push_back(rb);
        t.messages.push_back(res);
    }
    add(Role::Assistant, "All three files are fine.");
    linkToolPairs(t);

    const Strategy *s = find("trim-tools");
    QVERIFY(s);
    Input in(t);
    for (int keep = 0; keep <= 3; ++keep) {
        const Result r = run(*s, in, {{"keepLastToolRounds", keep}});
        const std::size_t removedRounds = static_cast<std::size_t>(3 - keep);
        QCOMPARE(r.changed, removedRounds > 0);
        QCOMPARE(r.stats.messagesBefore, std::size_t(9));
        QCOMPARE(r.stats.messagesAfter, 9 - 2 * removedRounds);
        for (std::size_t k = 0; k < 3; ++k) {
            const bool gone = k < removedRounds;
            QCOMPARE(r.fates[2 + 2 * k].fate, gone ? Fate::Removed : Fate::Kept);
            QCOMPARE(r.fates[3 + 2 * k].fate, gone ? Fate::Removed : Fate::Kept);
            QCOMPARE(r.fates[2 + 2 * k].slot < 0, gone);
            if (gone)
                QVERIFY(!r.fates[2 + 2 * k].reason.empty());
        }
        QCOMPARE(r.fates[0].fate, Fate::Kept);
        QCOMPARE(r.fates[8].fate, Fate::Kept);
        std::int64_t after = 0;
        for (std::size_t i = 0; i < t.messages.size(); ++i)
            if (r.fates[i].slot >= 0)
                after += tokens::estimateMessage(t.messages[i]);
        QCOMPARE(r.stats.tokensAfter, after);
        QVERIFY(r.validityChecked);
        QVERIFY2(r.violations.empty(), describe(r.violations).c_str());
        // efficiency = 0.6 (1 - after/before) + 0.4 kept/before
        const double eff = 0.6 * (1.0 - double(after) / double(r.stats.tokensBefore))
                           + 0.4 * double(9 - 2 * removedRounds) / 9.0;
        QVERIFY(std::abs(r.stats.efficiency - eff) < 1e-9);
    }
}

void TestStrategies::pinnedAndExemptAreRespected()
{
    auto t = generated(Format::ClaudeCode, 80, 7);
    QVERIFY(t);
    const Strategy *s = find("trim-tools");
    Input in(*t);
    const auto &rounds = in.analysis().rounds;
    QVERIFY(rounds.size() >= 4);
    // Pin the result of the first round: the round must survive whole (its call is pulled back).
    in.pinned = {rounds[0].results.front()};
    const Result r = run(*s, in, {{"keepLastToolRounds", 0}});
    QVERIFY(r.fates[rounds[0].results.front()].slot >= 0);
    QVERIFY(r.fates[rounds[0].assistant].slot >= 0);
    QCOMPARE(r.fates[rounds[1].assistant].fate, Fate::Removed);
    QVERIFY2(r.violations.empty(), describe(r.violations).c_str());

    // Exempt the tool of the second round: its messages are protected too.
    Input in2(*t);
    in2.exemptTools = {rounds[1].calls.front().name};
    const Result r2 = run(*s, in2, {{"keepLastToolRounds", 0}});
    for (const auto &round : rounds)
        for (const auto &c : round.calls)
            if (c.name == rounds[1].calls.front().name)
                QVERIFY(r2.fates[c.message].slot >= 0);
    QVERIFY2(r2.violations.empty(), describe(r2.violations).c_str());
}

namespace {
// A strategy that makes things worse, to exercise the guard.
class Inflate final : public Strategy
{
public:
    std::string_view name() const override { return "inflate"; }
    std::string_view title() const override { return "Inflate"; }
    std::string_view source() const override { return "test"; }
    Group group() const override { return Group::ToolResults; }
    std::string_view follows() const override { return {}; }
    std::string_view description() const override { return "Appends a long message."; }
    std::vector<ParamSpec> params() const override { return {}; }
    Result apply(const Input &in, const Params &) const override
    {
        Editor e(in);
        e.insertBefore(in.transcript.messages.size(), makeTextMessage(Role::User, std::string(5000, 'x')), "test");
        return e.finish();
    }
};
} // namespace

void TestStrategies::refusesLargerResult()
{
    auto t = generated(Format::OpenAIChat, 20, 3);
    QVERIFY(t);
    Input in(*t);
    const Result r = run(Inflate(), in);
    QVERIFY(!r.changed);
    QVERIFY(r.note.find("refused") != std::string::npos);
    QCOMPARE(r.stats.tokensAfter, r.stats.tokensBefore);
    QCOMPARE(r.slots.size(), t->messages.size());
    RunOptions o;
    o.refuseLarger = false;
    const Result r2 = run(Inflate(), in, nlohmann::json::object(), o);
    QVERIFY(r2.changed);
    QVERIFY(r2.stats.tokensAfter > r2.stats.tokensBefore);
}

void TestStrategies::metricsFactRetentionAndCachePrefix()
{
    // user asks, assistant runs a command and reads a file, result; second exchange.
    Transcript t;
    t.format = Format::OpenAIChat;
    Message u = makeTextMessage(Role::User, "Fix the parser crash\nmore detail");
    u.edited = false;
    t.messages.push_back(u);
    Message a;
    a.role = Role::Assistant;
    Block c1;
    c1.type = BlockType::ToolUse;
    c1.toolId = "c1";
    c1.toolName = "read_file";
    c1.input = {{"path", "/src/parser.cpp"}};
    a.blocks.push_back(c1);
    t.messages.push_back(a);
    Message res;
    res.role = Role::Tool;
    Block rb;
    rb.type = BlockType::ToolResult;
    rb.toolId = "c1";
    rb.text = "int parse();";
    res.blocks.push_back(rb);
    t.messages.push_back(res);
    Message u2 = makeTextMessage(Role::User, "Now run the tests");
    u2.edited = false;
    t.messages.push_back(u2);
    Message a2 = makeTextMessage(Role::Assistant, "Done.");
    a2.edited = false;
    t.messages.push_back(a2);
    linkToolPairs(t);

    Input in(t);
    // facts: "Fix the parser crash", "/src/parser.cpp", "Now run the tests" = 3.
    Result keepAll = unchanged(t);
    computeStats(in, keepAll, true);
    QCOMPARE(keepAll.stats.factsTotal, std::size_t(3));
    QCOMPARE(keepAll.stats.factRetention, 1.0);
    QCOMPARE(keepAll.stats.cachePrefixTokens, keepAll.stats.tokensBefore);

    // trim-tools keepLastToolRounds=0 removes the read: the path fact is lost; the prefix ends at message 1.
    const Result r = run(*find("trim-tools"), in, {{"keepLastToolRounds", 0}});
    QCOMPARE(r.stats.factsKept, std::size_t(2));
    QCOMPARE(r.stats.cachePrefixTokens, tokens::estimateMessage(t.messages[0]));

    // A summary that mentions the path keeps the fact.
    Editor e(in);
    e.remove(1, "test");
    e.remove(2, "test");
    e.insertBefore(3, makeTextMessage(Role::Assistant, "Read /src/parser.cpp earlier."), "summary");
    Result r2 = e.finish();
    computeStats(in, r2, true);
    QCOMPARE(r2.stats.factsKept, std::size_t(3));
}

void TestStrategies::everyStrategyOverEveryFormat_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("seed");
    for (const Format f : allFormats())
        for (int seed : {1, 2})
            QTest::newRow((std::string(formatName(f)) + "/" + std::to_string(seed)).c_str()) << int(f) << seed;
}

void TestStrategies::everyStrategyOverEveryFormat()
{
    QFETCH(int, format);
    QFETCH(int, seed);
    const Format f = static_cast<Format>(format);
    auto t = generated(f, seed == 1 ? 90 : 160, std::uint64_t(seed) * 11);
    QVERIFY(t);
    const auto before = validate(*t, f);
    std::mt19937 rng(static_cast<unsigned>(seed));
    for (const Strategy *s : all()) {
        for (int variant = 0; variant < 3; ++variant) {
            Input in(*t);
            in.options.contextWindow = 60000;
            nlohmann::json params = variant == 0 ? nlohmann::json::object() : test::forcedParams(*s);
            if (variant == 2) { // pins and an exempt tool
                const auto &conv = in.analysis().view.index;
                for (int k = 0; k < 3 && !conv.empty(); ++k)
                    in.pinned.push_back(conv[rng() % conv.size()]);
                if (!in.analysis().rounds.empty())
                    in.exemptTools = {in.analysis().rounds.front().calls.front().name};
            }
            const Result r = run(*s, in, params);
            const std::string where = std::string(s->name()) + " variant " + std::to_string(variant) + ": ";
            QVERIFY2(r.fates.size() == t->messages.size(), (where + "fates").c_str());
            for (std::size_t i = 0; i < t->messages.size(); ++i) {
                const MessageFate &mf = r.fates[i];
                QVERIFY2((mf.slot < 0) == (mf.fate == Fate::Removed || mf.fate == Fate::Summarized),
                         (where + "fate/slot mismatch at " + std::to_string(i) + " fate " + std::string(fateName(mf.fate))).c_str());
                if (mf.slot >= 0)
                    QVERIFY2(r.slots[std::size_t(mf.slot)].origin == std::int32_t(i), (where + "slot origin").c_str());
                if (mf.fate != Fate::Kept && mf.slot >= 0)
                    QVERIFY2(!mf.reason.empty(), (where + "no reason at " + std::to_string(i)).c_str());
            }
            for (const std::size_t p : in.pinned)
                QVERIFY2(r.fates[p].slot >= 0 && !r.slots[std::size_t(r.fates[p].slot)].message,
                         (where + "pinned message " + std::to_string(p) + " touched").c_str());
            for (std::size_t i = 0; i < t->messages.size(); ++i)
                for (const auto &b : t->messages[i].blocks)
                    if (!in.exemptTools.empty() && b.toolName == in.exemptTools.front()
                        && (b.type == BlockType::ToolUse || b.type == BlockType::ToolResult)) {
                        QVERIFY2(r.fates[i].slot >= 0, (where + "exempt tool message " + std::to_string(i) + " removed").c_str());
                        const Message &now = r.message(*t, std::size_t(r.fates[i].slot));
                        bool same = false;
                        for (const auto &nb : now.blocks)
                            same = same || (nb.toolId == b.toolId && nb.type == b.type && nb.text == b.text);
                        QVERIFY2(same, (where + "exempt tool block in message " + std::to_string(i) + " changed").c_str());
                    }
            QVERIFY2(r.stats.tokensAfter <= r.stats.tokensBefore, (where + "larger result").c_str());
            // The estimate an edited copy carries (kept current by the editor edit by edit) is the
            // one its text gives.
            for (const Slot &slot : r.slots)
                if (slot.message) {
                    Message fresh = *slot.message;
                    fresh.cache.tokenEstimate = -1;
                    QVERIFY2(tokens::estimateMessage(*slot.message) == tokens::estimateMessage(fresh),
                             (where + "stale estimate of a copy of message " + std::to_string(slot.origin)).c_str());
                }
            if (before.empty())
                QVERIFY2(r.violations.empty(), (where + describe(r.violations)).c_str());
            // run() validates the result's shape: the full copy has the same violations.
            QCOMPARE(describe(r.violations), describe(validate(r.materialize(*t), f)));
            // Written back in its format and reloaded, the result is still valid.
            if (r.changed && variant == 1) {
                const Transcript m = r.materialize(*t);
                const WriteResult w = writeTranscript(m, f);
                QVERIFY2(w.ok, (where + "write failed: " + w.error).c_str());
                LoadOptions lo;
                lo.format = f;
                auto back = loadBytes(w.bytes, t->path, lo);
                QVERIFY2(back.transcript, (where + "reload failed").c_str());
                if (before.empty()) {
                    const auto v = validate(*back.transcript, f);
                    QVERIFY2(v.empty(), (where + "after reload: " + describe(v)).c_str());
                }
            }
        }
    }
}

void TestStrategies::compareRunsEverything()
{
    auto t = generated(Format::ClaudeCode, 120, 5);
    QVERIFY(t);
    Input in(*t);
    std::atomic<std::size_t> calls{0};
    CompareOptions o;
    o.progress = [&](std::size_t, std::size_t) { ++calls; };
    const auto rows = compare(in, o);
    QCOMPARE(rows.size(), all().size());
    QCOMPARE(calls.load(), all().size());
    for (std::size_t k = 0; k < rows.size(); ++k) {
        QCOMPARE(rows[k].strategy, std::string(all()[k]->name()));
        QVERIFY(rows[k].error.empty());
        QCOMPARE(rows[k].result.stats.messagesBefore, rows[0].result.stats.messagesBefore);
    }
    CompareOptions only;
    only.names = {"trim-tools", "bogus"};
    const auto two = compare(in, only);
    QCOMPARE(two.size(), std::size_t(2));
    QCOMPARE(two[0].strategy, std::string("bogus"));
    QVERIFY(!two[0].error.empty());
    std::atomic<bool> cancel{true};
    CompareOptions cancelled;
    cancelled.cancel = &cancel;
    QCOMPARE(compare(in, cancelled).size(), std::size_t(0));
}

QTEST_GUILESS_MAIN(TestStrategies)
#include "tst_strategies.moc"
