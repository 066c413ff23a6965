// SPDX-License-Identifier: MIT
// Compaction on the wire (core/workflow/requestrewrite.h, `record --strategy`): a request run
// through a strategy and written back in its own API with every other field as sent; the figures
// calibrated from the provider's answers; a result the provider would reject, or a body that cannot
// be read, never forwarded. Then the proxy against the fake upstream of tst_recordproxy: live mode
// forwards the compacted body, the dry run the original, the switch turns it off at once, and the
// recording's "rewrite" lines read back as each request's rewrite (what the model saw).
#include "core/formats/recording/recording.h"
#include "core/io/recordedrequest.h"
#include "core/workflow/requestrewrite.h"
#include "net/recordingfile.h"
#include "net/recordingproxy.h"

#include <QTemporaryDir>

#include "recordproxy_fixture.h"
#include "test_support.h"

using namespace cl;
using namespace cl::test;

namespace {

Json bash(const std::string &id, const std::string &command)
{
    return {{"role", "assistant"}, {"content", Json::array({{{"type", "tool_use"}, {"id", id}, {"name", "Bash"}, {"input", {{"command", command}}}}})}};
}

Json result(const std::string &id, const std::string &text)
{
    return {{"role", "user"}, {"content", Json::array({{{"type", "tool_result"}, {"tool_use_id", id}, {"content", text}}})}};
}

// An Anthropic request with three tool rounds, as an agent sends it: trim-tools keeps the last.
Json anthropicRequest(bool startWithAssistant = false)
{
    Json messages = Json::array();
    if (startWithAssistant) // the provider rejects this; so must every compacted form of it
        messages.push_back({{"role", "assistant"}, {"content", "Hello."}});
    messages.push_back({{"role", "user"}, {"content", "List the files, three times."}});
    for (int i = 1; i <= 3; ++i) {
        const std::string id = "toolu_" + std::to_string(i);
        messages.push_back(bash(id, "ls -l /srv/data/" + std::to_string(i)));
        messages.push_back(result(id, std::string(2000, char('a' + i))));
    }
    return {{"model", "claude-sonnet-4-5"}, {"max_tokens", 1024}, {"stream", true}, {"system", "You are careful."}, {"metadata", {{"user_id", "u-1"}}}, {"tools", Json::array({{{"name", "Bash"}, {"description", "Runs a command"}, {"input_schema", {{"type", "object"}}}}})}, {"messages", messages}};
}

Json geminiRequest()
{
    Json contents = Json::array({{{"role", "user"}, {"parts", Json::array({{{"text", "List the files."}}})}}});
    for (int i = 1; i <= 3; ++i) {
        contents.push_back({{"role", "model"}, {"parts", Json::array({{{"functionCall", {{"name", "run_shell_command"}, {"args", {{"command", "ls " + std::to_string(i)}}}}}}})}});
        contents.push_back({{"role", "user"}, {"parts", Json::array({{{"functionResponse", {{"name", "run_shell_command"}, {"response", {{"output", std::string(1500, 'x')}}}}}}})}});
    }
    return {{"contents", contents}, {"generationConfig", {{"temperature", 0}}}};
}

wire::RewriteOptions trimTools(bool dryRun = false)
{
    wire::RewriteOptions o;
    o.strategy = "trim-tools";
    o.dryRun = dryRun;
    return o;
}

QByteArray dumped(const Json &j)
{
    return QByteArray::fromStdString(j.dump());
}

} // namespace

class TestWireRewrite : public QObject
{
    Q_OBJECT

    struct Setup {
        QTemporaryDir dir;
        FakeUpstream upstream;
        net::RecordingFile file;
        std::unique_ptr<wire::RequestRewriter> rewriter;
        std::unique_ptr<net::RecordingProxy> proxy;
        QString path() const { return dir.filePath(QStringLiteral("rec.jsonl")); }
    };

    std::unique_ptr<Setup> setup(const wire::RewriteOptions &options)
    {
        auto s = std::make_unique<Setup>();
        std::string error;
        if (!s->upstream.start() || !s->file.open(s->path().toStdString(), error))
            return nullptr;
        s->rewriter = std::make_unique<wire::RequestRewriter>(options);
        s->proxy = std::make_unique<net::RecordingProxy>(&s->file);
        s->proxy->setUpstream(s->upstream.url());
        s->proxy->setRewriter(s->rewriter.get());
        if (!s->proxy->listen(QHostAddress::LocalHost, 0))
            return nullptr;
        s->file.writeStart(QStringLiteral("http://127.0.0.1:") + QString::number(s->proxy->port()), s->proxy->upstream());
        return s;
    }

    // Sends `body` to /v1/messages through the proxy; the fake upstream echoes what it received.
    static QByteArray send(const Setup &s, const QByteArray &body)
    {
        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, s.proxy->port());
        if (!client.waitForConnected(5000))
            return {};
        client.write(post("/v1/messages", body));
        QByteArray raw;
        if (!QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 1 && r[0].complete; }, 5000))
            return {};
        return parseResponses(raw)[0].body;
    }

private Q_SLOTS:
    void compactsAndKeepsTheRest()
    {
        wire::RequestRewriter r(trimTools());
        const Json sent = anthropicRequest();
        const wire::Rewrite w = r.rewrite(Format::Anthropic, sent.dump());
        QVERIFY2(w.error.empty(), w.error.c_str());
        QVERIFY(w.changed);
        QVERIFY(w.valid);
        QVERIFY(w.forwarded);
        QVERIFY2(w.note.find("2 of 3 tool rounds") != std::string::npos, w.note.c_str());
        const Json out = Json::parse(w.body);
        for (const char *key : {"model", "max_tokens", "stream", "system", "metadata", "tools"})
            QCOMPARE(out[key], sent[key]);
        // The request, the last round: the first two rounds (four messages) gone.
        QCOMPARE(out["messages"].size(), std::size_t(3));
        QCOMPARE(out["messages"][0], sent["messages"][0]);
        QCOMPARE(out["messages"][2], sent["messages"][6]);
        QVERIFY(w.tokensAfter < w.tokensBefore);
        QVERIFY(w.tokensBefore - w.tokensAfter > 600); // two results of 2 000 characters
        // Not calibrated yet: the provider's count is ContextLens's.
        QVERIFY(!w.calibrated);
        QCOMPARE(w.predictedAfter, w.tokensAfter);
        // An answer measured 1.5 times the estimate: the next prediction follows it.
        r.learn(Format::Anthropic, 1000, 1500);
        const wire::Rewrite again = r.rewrite(Format::Anthropic, sent.dump());
        QVERIFY(again.calibrated);
        QCOMPARE(again.calibration, 1.5);
        QCOMPARE(again.predictedAfter, std::int64_t(std::llround(1.5 * double(again.tokensAfter))));
        QVERIFY(!r.rewrite(Format::Gemini, geminiRequest().dump()).calibrated); // per API

        // A dry run changes the same, forwards nothing of it.
        const wire::Rewrite dry = wire::RequestRewriter(trimTools(true)).rewrite(Format::Anthropic, sent.dump());
        QVERIFY(dry.changed);
        QVERIFY(!dry.forwarded);
        QCOMPARE(dry.body, w.body);
    }

    void otherApisAndGuards()
    {
        // Gemini: the same strategy on contents; generationConfig as sent.
        const Json g = geminiRequest();
        const wire::Rewrite w = wire::RequestRewriter(trimTools()).rewrite(Format::Gemini, g.dump());
        QVERIFY2(w.changed && w.valid && w.forwarded, (w.note + w.error).c_str());
        const Json out = Json::parse(w.body);
        QCOMPARE(out["generationConfig"], g["generationConfig"]);
        QCOMPARE(out["contents"].size(), std::size_t(3));

        // A pinned message holds: the first round's call (message 2, after the system prompt and the
        // request) stays.
        wire::RewriteOptions pinned = trimTools();
        pinned.pinned = {2};
        const wire::Rewrite p = wire::RequestRewriter(pinned).rewrite(Format::Anthropic, anthropicRequest().dump());
        QVERIFY(p.changed);
        const Json kept = Json::parse(p.body)["messages"];
        QCOMPARE(kept[1], anthropicRequest()["messages"][1]);
        // An exempt tool's rounds are never removed.
        wire::RewriteOptions exempt = trimTools();
        exempt.exemptTools = {"Bash"};
        QVERIFY(!wire::RequestRewriter(exempt).rewrite(Format::Anthropic, anthropicRequest().dump()).changed);

        // The provider would reject the result (the first message is the assistant's): the original goes.
        const wire::Rewrite bad = wire::RequestRewriter(trimTools()).rewrite(Format::Anthropic, anthropicRequest(true).dump());
        QVERIFY(bad.changed);
        QVERIFY(!bad.valid);
        QVERIFY(!bad.forwarded);
        QVERIFY(!bad.violations.empty());
        QVERIFY2(bad.violations.front().find("first message must be from the user") != std::string::npos, bad.violations.front().c_str());

        // A body that is no request: said, nothing forwarded.
        const wire::Rewrite broken = wire::RequestRewriter(trimTools()).rewrite(Format::Anthropic, "{\"messages\": [");
        QVERIFY(!broken.error.empty());
        QVERIFY(!broken.forwarded);

        std::string error;
        wire::RewriteOptions unknown;
        unknown.strategy = "no-such";
        QVERIFY(!wire::RequestRewriter::check(unknown, error));
        QVERIFY(error.find("unknown strategy") != std::string::npos);
        wire::RewriteOptions badParam = trimTools();
        badParam.params = {{"keepLastToolRounds", "many"}};
        QVERIFY(!wire::RequestRewriter::check(badParam, error));
        QVERIFY(wire::RequestRewriter::check(trimTools(), error));
    }

    void proxyForwardsTheCompactedRequest()
    {
        auto s = setup(trimTools());
        QVERIFY(s);
        std::vector<std::string> said;
        s->proxy->setRewriteHandler([&](const std::string &line) { said.push_back(line); });
        const QByteArray original = dumped(anthropicRequest());
        const QByteArray echoed = send(*s, original);
        QVERIFY(!echoed.isEmpty());
        QCOMPARE(s->upstream.requests.size(), 1);
        const QByteArray received = s->upstream.requests.back().body;
        QVERIFY(received.size() < original.size());
        QCOMPARE(Json::parse(received.toStdString())["messages"].size(), std::size_t(3));
        QCOMPARE(said.size(), std::size_t(1));
        QVERIFY2(said[0].find("the compacted request forwarded") != std::string::npos, said[0].c_str());

        // The recording: the agent's request, then what went upstream.
        const auto lines = recordingLines(s->path());
        const Json *request = find(lines, "request", 1), *rewrite = find(lines, "rewrite", 1);
        QVERIFY(request && rewrite);
        QCOMPARE(QByteArray::fromStdString((*request)["body"].get<std::string>()), original);
        QCOMPARE(QByteArray::fromStdString((*rewrite)["body"].get<std::string>()), received);
        QCOMPARE((*rewrite)["forwarded"], Json("compacted"));
        QCOMPARE((*rewrite)["mode"], Json("live"));
        // Read back: the request is what the model saw, the agent's kept beside it.
        std::string bytes, error;
        QVERIFY(readRecordingFile(s->path().toStdString(), bytes, error));
        const recording::Recording rec = recording::readRecording(bytes, "rec.jsonl");
        QVERIFY(rec.diagnostics.empty());
        QCOMPARE(rec.exchanges.size(), std::size_t(1));
        QCOMPARE(QByteArray::fromStdString(rec.exchanges[0].requestBody), received);
        QCOMPARE(QByteArray::fromStdString(rec.exchanges[0].agentBody), original);
        QVERIFY(rec.exchanges[0].rewrite && rec.exchanges[0].rewrite->forwarded);

        // Switched off: the next request goes as the agent sent it, with no rewrite line.
        s->proxy->setRewriting(false);
        QVERIFY(!s->proxy->isRewriting());
        QVERIFY(!send(*s, original).isEmpty());
        QCOMPARE(s->upstream.requests.back().body, original);
        QVERIFY(!find(recordingLines(s->path()), "rewrite", 2));

        const auto r = test::runCli({"requests", s->path().toStdString()});
        QVERIFY2(r.out.find("trim-tools (live):") != std::string::npos && r.out.find("the compacted request forwarded") != std::string::npos,
                 r.out.c_str());
    }

    void dryRunForwardsTheOriginal()
    {
        auto s = setup(trimTools(true));
        QVERIFY(s);
        const QByteArray original = dumped(anthropicRequest());
        QVERIFY(!send(*s, original).isEmpty());
        QCOMPARE(s->upstream.requests.back().body, original);
        const auto lines = recordingLines(s->path());
        const Json *rewrite = find(lines, "rewrite", 1);
        QVERIFY(rewrite);
        QCOMPARE((*rewrite)["mode"], Json("dry-run"));
        QCOMPARE((*rewrite)["forwarded"], Json("original"));
        QVERIFY((*rewrite)["changed"].get<bool>());
        QVERIFY((*rewrite)["tokensAfter"].get<std::int64_t>() < (*rewrite)["tokensBefore"].get<std::int64_t>());

        // A request the provider would reject goes as sent, and is said.
        std::vector<std::string> said;
        auto live = setup(trimTools());
        QVERIFY(live);
        live->proxy->setRewriteHandler([&](const std::string &line) { said.push_back(line); });
        const QByteArray bad = dumped(anthropicRequest(true));
        QVERIFY(!send(*live, bad).isEmpty());
        QCOMPARE(live->upstream.requests.back().body, bad);
        QCOMPARE(said.size(), std::size_t(1));
        QVERIFY2(said[0].find("the original was forwarded") != std::string::npos, said[0].c_str());
    }

    void commandLineOptions()
    {
        auto r = test::runCli({"record", "-o", "/tmp/x.jsonl", "--dry-run"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("go with --strategy") != std::string::npos, r.err.c_str());
        r = test::runCli({"record", "-o", "/tmp/x.jsonl", "--strategy", "no-such"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("unknown strategy 'no-such'") != std::string::npos, r.err.c_str());
        r = test::runCli({"record", "-o", "/tmp/x.jsonl", "--strategy", "trim-tools", "--param", "keepLastToolRounds=x"});
        QCOMPARE(r.code, 2);
        r = test::runCli({"record", "-o", "/tmp/x.jsonl", "--strategy", "trim-tools", "--pin", "a"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.find("--pin") != std::string::npos, r.err.c_str());
    }
};

QTEST_MAIN(TestWireRewrite)
#include "tst_wirerewrite.moc"
