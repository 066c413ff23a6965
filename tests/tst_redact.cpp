// SPDX-License-Identifier: MIT
// Redaction before sharing (core/redact/redact.h, docs/design/redaction.md; issue 29 item 4, findings
// 3 and 13): every rule with true and false examples, stable placeholders, the user's patterns, a
// planted session (one secret per rule, and near misses) through every sharing command, refusal to
// write a report or Markdown over the session, remote images, and the GUI's redaction dialog.
//
// The secrets are made up and assembled at run time from pieces, so that no secret scanner flags
// this file and no real key is ever in it.
#include "core/io/loader.h"
#include "core/redact/redact.h"
#include "core/report/markdownimages.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/redactiondialog.h"
#include "widgets/transcript/transcriptdocument.h"

#include "test_support.h"

#include <QCheckBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <unistd.h>

using namespace cl;
using cl::test::readFile;
using cl::test::runCli;
using cl::test::writeFile;

namespace {

const bool kGuiEnvironment = cl::test::guiEnvironment();

std::string rep(const std::string &s, int n)
{
    std::string out;
    for (int i = 0; i < n; ++i)
        out += s;
    return out;
}

// One made-up secret per rule, keyed by the rule that must find it.
struct Planted {
    std::string rule;
    std::string secret;
};

const std::vector<Planted> &planted()
{
    static const std::vector<Planted> all = {
        {"anthropic-key", std::string("sk-") + "ant-api03-" + rep("Zq3vN8pLw2XcR7tY", 5) + "-Lk2Mn4AA"},
        {"openai-key", std::string("sk-") + "proj-" + rep("4fT9kLm2Qx7Rz1Vb", 4)},
        {"google-api-key", std::string("AI") + "za" + "SyD4x9K2mP7qR1sT5vW8yZ3bC6eF0hJ4kLn"},
        {"aws-access-key-id", std::string("AK") + "IA" + "Z7Q3LM5N8P2R4T6V"},
        {"aws-secret-key", std::string("Tq8fR2vX5zB9nM3k") + "L7pW1cY4hJ6gD0sA2eU9iO5r"},
        {"github-token", std::string("gh") + "p_" + "8Kd2Lm4Np6Qr8St0Uv2Wx4Yz6Ab8Cd0Ef2Gh4Ij"},
        {"gitlab-token", std::string("gl") + "pat-" + "9xY2wV4uT6sR8qP0oN1m"},
        {"slack-token", std::string("xo") + "xb-" + "1234567890-9876543210-AbCdEfGhIjKlMnOp"},
        {"slack-webhook", std::string("https://hooks.") + "slack.com/services/" + "T01ABCD2E/B02FGHI3J/k4LmN5oP6qR7sT8uV9wX0yZ1"},
        {"stripe-key", std::string("sk") + "_live_" + "51HxYz2Kq8Lm4Np6Rs8Tu0Vw"},
        {"huggingface-token", std::string("h") + "f_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"},
        {"npm-token", std::string("np") + "m_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"},
        {"private-key", std::string("-----BEGIN RSA ") + "PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + rep("q8Zr2Vx7Lm4Np1Ks9Tb3", 3)
                            + "\n" + rep("Wd6Ye0Ua5Ps2Oi9Uh4Jg", 3) + "\n-----END RSA " + "PRIVATE KEY-----"},
        {"jwt", std::string("ey") + "JhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ."
                    + "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"},
        {"url-password", "S3cr3tPa55w0rd"},
        {"env-secret", "hunter2hunter9"},
        {"internal-host", "corp-x7k2m9q4.internal"}, // the user's own pattern (kPatterns)
    };
    return all;
}

std::string secretOf(const std::string &rule)
{
    for (const Planted &p : planted())
        if (p.rule == rule)
            return p.secret;
    return {};
}

// Text that looks close to a secret and is not one: every one must be kept.
const std::vector<std::string> &nearMisses()
{
    static const std::vector<std::string> all = {
        "use sk-learn for the model",
        "password: ",
        "OPENAI_API_KEY=sk-your-key-here",
        std::string("OPENAI_API_KEY=sk-") + rep("x", 40),
        std::string("AK") + "IAIOSFODNN7EXAMPLE",
        std::string("aws_secret_access_key = ") + "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        std::string("-----BEGIN OPENSSH ") + "PRIVATE KEY----- starts the file and the END line closes it",
        "-----BEGIN PUBLIC KEY-----",
        "https://user@github.com/org/repo",
        "postgres://user:password@localhost/db",
        "postgres://user:${DB_PASS}@localhost/db",
        "DB_PASSWORD=${DB_PASSWORD}",
        "token = os.environ.get",
        "def login(password: str)",
        "API_KEY=<your-api-key>",
        "monkey=banana12 keyboard=qwerty123",
        "http://localhost:8080/path",
        "eyJhbGciOi alone",
        "ghp_abc is too short",
        "if token == other",
        "Token: authentication comes next",
        "PASSWORD=abc",
        "const token = getToken();",
        "sort_key=created_at token_count=12345678",
    };
    return all;
}

const char *const kPatterns = "# the user's own patterns\n"
                              "internal-host: corp-[a-z0-9]{8}\\.internal\n";

// A JSON string's content (the secrets go into JSON lines).
std::string js(const std::string &s)
{
    return nlohmann::json(s).dump();
}

std::string line(const std::string &type, const std::string &uuid, const std::string &parent, const std::string &message,
                 const std::string &extra = {})
{
    return "{\"parentUuid\":" + (parent.empty() ? std::string("null") : js(parent))
           + ",\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/w\",\"sessionId\":\"s-redact\",\"version\":\"2.1.100\",\"type\":"
           + js(type) + ",\"message\":" + message + extra + ",\"uuid\":" + js(uuid) + ",\"timestamp\":\"2026-01-01T10:00:0" + uuid.substr(1)
           + ".000Z\"}\n";
}

// A Claude Code session with every planted secret (in user text, a tool call's input, a tool result
// and its toolUseResult copy, assistant text and a summary line) and every near miss.
std::string plantedSession()
{
    const auto s = [](const char *rule) { return secretOf(rule); };
    std::string near;
    for (const std::string &n : nearMisses())
        near += n + "\n";
    std::string f;
    f += line("user", "u1", "", "{\"role\":\"user\",\"content\":" + js("My key is " + s("anthropic-key") + " and the host " + s("internal-host") + ".\nNotes:\n" + near) + "}");
    const std::string command = "export OPENAI_API_KEY=" + s("openai-key") + " && curl -H 'x-goog-api-key: " + s("google-api-key")
                                + "' postgres://admin:" + s("url-password") + "@db.internal:5432/app " + s("slack-webhook");
    f += line("assistant", "a2", "u1",
              "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"text\",\"text\":\"Running it.\"},"
              "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Bash\",\"input\":{\"command\":"
                  + js(command) + "}}],\"usage\":{\"input_tokens\":10,\"output_tokens\":5}}");
    const std::string env = "AWS_ACCESS_KEY_ID=" + s("aws-access-key-id") + "\nAWS_SECRET_ACCESS_KEY=" + s("aws-secret-key") + "\nGITHUB_TOKEN="
                            + s("github-token") + "\nDB_PASSWORD=" + s("env-secret") + "\n" + s("private-key") + "\n";
    f += line("user", "u3", "a2", "{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"toolu_1\",\"type\":\"tool_result\",\"content\":" + js(env) + "}]}",
              ",\"toolUseResult\":{\"stdout\":" + js(env) + ",\"stderr\":\"\"}");
    f += line("assistant", "a4", "u3",
              "{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"text\",\"text\":"
                  + js("Also found " + s("gitlab-token") + ", " + s("slack-token") + ", " + s("stripe-key") + ", " + s("jwt") + ", "
                       + s("huggingface-token") + " and " + s("npm-token") + ". Again: " + s("anthropic-key") + ". ![chart](https://tracker.example/p.png)")
                  + "}],\"usage\":{\"input_tokens\":20,\"output_tokens\":9}}");
    f += "{\"type\":\"summary\",\"summary\":" + js("Session with " + s("github-token")) + ",\"leafUuid\":\"a4\"}\n";
    return f;
}

std::string leaks(const std::string &output)
{
    std::string found;
    for (const Planted &p : planted())
        if (output.find(p.secret) != std::string::npos)
            found += p.rule + " ";
    return found;
}

std::string missingNearMisses(const std::string &output)
{
    std::string missing;
    for (const std::string &n : nearMisses()) {
        // Markdown and HTML escape some characters: compare what survives escaping (the part before
        // the first character either escapes).
        const std::string probe = n.substr(0, n.find_first_of("<>&\"'"));
        if (probe.size() >= 4 && output.find(probe) == std::string::npos)
            missing += "'" + n + "' ";
    }
    return missing;
}

} // namespace

class TestRedact : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_session;
    std::string m_patterns;
    std::string m_original;

    std::string path(const std::string &name) const { return m_dir.path().toStdString() + "/" + name; }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_session = path("planted.jsonl");
        m_original = plantedSession();
        writeFile(m_session, m_original);
        m_patterns = path("patterns.txt");
        writeFile(m_patterns, kPatterns);
        // The GUI's own patterns file (tests run with their own configuration folders).
        QVERIFY(QDir().mkpath(QFileInfo(gui::redactionPatternsPath()).absolutePath()));
        writeFile(QFile::encodeName(gui::redactionPatternsPath()).toStdString(), kPatterns);
    }

    // Every rule finds its secret, as a whole, and names it.
    void eachRuleFindsItsSecret_data()
    {
        QTest::addColumn<QString>("rule");
        for (const Planted &p : planted())
            QTest::newRow(p.rule.c_str()) << QString::fromStdString(p.rule);
    }
    void eachRuleFindsItsSecret()
    {
        QFETCH(QString, rule);
        auto rules = redact::Rules::builtIn();
        std::string error;
        QVERIFY2(rules->addPatterns(kPatterns, error), error.c_str());
        redact::Redactor r(rules);
        const std::string secret = secretOf(rule.toStdString());
        const std::string id = rule.toStdString();
        const std::string context = id == "url-password"     ? "mysql://root:" + secret + "@db:3306/x"
                                    : id == "env-secret"     ? "DB_PASSWORD=" + secret
                                    : id == "aws-secret-key" ? "aws_secret_access_key = " + secret
                                                             : "value " + secret + " end";
        const std::string out = r.text(context);
        QVERIFY2(out.find(secret) == std::string::npos, out.c_str());
        QVERIFY2(out.find("[REDACTED:" + rule.toStdString() + ":1]") != std::string::npos, out.c_str());
        QCOMPARE(r.countsByRule().at(rule.toStdString()), std::size_t(1));
    }

    void nearMissesAreKept_data()
    {
        QTest::addColumn<QString>("text");
        for (const std::string &n : nearMisses())
            QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }
    void nearMissesAreKept()
    {
        QFETCH(QString, text);
        redact::Redactor r;
        const std::string in = text.toStdString();
        QCOMPARE(r.text(in), in);
        QCOMPARE(r.occurrences(), std::size_t(0));
    }

    // A quoted literal is a secret even without a digit; an unquoted name is code.
    void quotedAssignment()
    {
        redact::Redactor r;
        QCOMPARE(r.text("PASSWORD=\"correcthorsebattery\""), std::string("PASSWORD=\"[REDACTED:env-secret:1]\""));
        QCOMPARE(r.text("password = correcthorsebattery"), std::string("password = correcthorsebattery"));
    }

    // The same secret, the same placeholder; another secret of the rule, the next number.
    void placeholdersAreStable()
    {
        redact::Redactor r;
        const std::string a = secretOf("github-token");
        const std::string b = std::string("gh") + "p_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8Nn";
        const std::string out = r.text(a + " " + b + " " + a);
        QCOMPARE(out, std::string("[REDACTED:github-token:1] [REDACTED:github-token:2] [REDACTED:github-token:1]"));
        QCOMPARE(r.text("again " + a), std::string("again [REDACTED:github-token:1]"));
        QCOMPARE(r.secrets().size(), std::size_t(2));
        QCOMPARE(r.secrets()[0].occurrences, std::size_t(3));
        QVERIFY(r.secrets()[0].masked.find(a) == std::string::npos);
    }

    // A cut-off private key (a truncated tool result) is still removed up to its last base64 line.
    void truncatedPrivateKey()
    {
        redact::Redactor r;
        const std::string body = rep("q8Zr2Vx7Lm4Np1Ks9Tb3", 3);
        const std::string out = r.text(std::string("-----BEGIN ") + "PRIVATE KEY-----\n" + body + "\n" + body + "\n[output truncated]");
        QVERIFY2(out.find(body) == std::string::npos, out.c_str());
        QVERIFY(out.find("[output truncated]") != std::string::npos);
    }

    void userPatterns()
    {
        auto rules = redact::Rules::builtIn();
        std::string error;
        QVERIFY2(rules->addPatterns("# comment\n\nticket: TICKET-([0-9]{6})\nsecret-[a-z]{5}\n", error), error.c_str());
        const auto ids = rules->ids();
        QVERIFY(std::find(ids.begin(), ids.end(), "ticket") != ids.end());
        QVERIFY(std::find(ids.begin(), ids.end(), "pattern-4") != ids.end());
        redact::Redactor r(rules);
        // A capture group: only it is replaced.
        QCOMPARE(r.text("see TICKET-123456 and secret-abcde"), std::string("see TICKET-[REDACTED:ticket:1] and [REDACTED:pattern-4:1]"));
        auto bad = redact::Rules::builtIn();
        QVERIFY(!bad->addPatterns("ok: a+\nbroken: (unclosed\n", error));
        QVERIFY2(error.find("line 2") != std::string::npos, error.c_str());
        QVERIFY(!bad->addPatternsFile(path("no-such-patterns.txt"), error));
    }

    // JSON Lines stay JSON Lines: a changed line is valid JSON with the placeholder, the others are
    // the same bytes; a document keeps its indentation.
    void fileBytesKeepJson()
    {
        redact::Redactor r;
        const std::string key = secretOf("openai-key");
        const std::string in = "{\"a\":1,\"t\":\"k=" + key + "\"}\n{\"b\":2.50,  \"c\":\"plain\"}\nnot json " + key + "\n";
        const std::string out = r.fileBytes(in);
        QVERIFY(out.find(key) == std::string::npos);
        QCOMPARE(out, std::string("{\"a\":1,\"t\":\"k=[REDACTED:openai-key:1]\"}\n{\"b\":2.50,  \"c\":\"plain\"}\nnot json [REDACTED:openai-key:1]\n"));
        const std::string doc = "{\n  \"messages\": [\n    {\n      \"text\": \"" + key + "\"\n    }\n  ]\n}\n";
        const std::string redactedDoc = r.fileBytes(doc);
        QVERIFY(redactedDoc.find(key) == std::string::npos);
        QVERIFY(!nlohmann::json::parse(redactedDoc, nullptr, false).is_discarded());
        QVERIFY(redactedDoc.find("\n  \"messages\"") != std::string::npos);
    }

    // convert --redact to every format: no secret in the bytes, every near miss kept where the
    // target carries the text, the result still loads as its format; the counts are printed.
    void convertToEveryFormat_data()
    {
        QTest::addColumn<QString>("format");
        for (Format f : allFormats())
            QTest::newRow(std::string(formatName(f)).c_str()) << QString::fromUtf8(formatName(f).data(), qsizetype(formatName(f).size()));
    }
    void convertToEveryFormat()
    {
        QFETCH(QString, format);
        const std::string out = path("converted-" + format.toStdString());
        const auto r = runCli({"convert", m_session, "--to", format.toStdString(), "-o", out, "--force", "--redact-patterns", m_patterns});
        QVERIFY2(r.code != cli::Exit::Failure, (r.out + r.err).c_str());
        const std::string bytes = readFile(out);
        QVERIFY2(leaks(bytes).empty(), leaks(bytes).c_str());
        QVERIFY2(bytes.find("[REDACTED:anthropic-key:1]") != std::string::npos, bytes.c_str());
        QVERIFY2(missingNearMisses(bytes).empty() || format.toStdString() != "claude-code", missingNearMisses(bytes).c_str());
        QVERIFY2(r.out.find("redacted ") != std::string::npos && r.out.find("anthropic-key") != std::string::npos, r.out.c_str());
        LoadOptions lo;
        lo.format = *formatFromName(format.toStdString());
        lo.loadSubagents = false;
        const LoadResult back = loadFile(out, lo);
        QVERIFY(back.ok());
        QVERIFY(!back.transcript->messages.empty());
        QCOMPARE(readFile(m_session), m_original); // the original is never touched
    }

    // The same file, the same placeholders; the redacted Claude Code export still chains and
    // validates as Claude Code.
    void claudeCodeExportStaysValid()
    {
        const std::string out = path("shared.jsonl");
        const auto r = runCli({"convert", m_session, "--to", "claude-code", "-o", out, "--force", "--redact", "--json"});
        QCOMPARE(r.code, int(cli::Exit::Success));
        const auto j = nlohmann::json::parse(r.out);
        QVERIFY2(j["valid"].get<bool>(), r.out.c_str());
        QVERIFY(j["redaction"]["rules"]["anthropic-key"].get<int>() >= 2);
        QCOMPARE(j["redaction"]["rules"]["github-token"].get<int>(), 3); // the result, its toolUseResult copy, the summary line
        const std::string bytes = readFile(out);
        // The key is in two messages: one placeholder.
        std::size_t n = 0;
        for (std::size_t at = bytes.find("[REDACTED:anthropic-key:1]"); at != std::string::npos; at = bytes.find("[REDACTED:anthropic-key:1]", at + 1))
            ++n;
        QCOMPARE(n, std::size_t(2));
        QVERIFY(bytes.find("[REDACTED:anthropic-key:2]") == std::string::npos);
        const auto v = runCli({"validate", out});
        QVERIFY2(v.code == cli::Exit::Success, (v.out + v.err).c_str());
    }

    void reportAndMarkdown_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("output");
        const auto row = [](const char *name, const char *args, const char *output) {
            QTest::newRow(name) << QString::fromLatin1(args).split(QLatin1Char(' ')) << QString::fromLatin1(output);
        };
        row("report html", "report -o r.html --strategies none", "r.html");
        row("report markdown", "report -o r.md --strategies none", "r.md");
        row("export-markdown", "export-markdown -o t.md --max-result-chars 100000", "t.md");
        row("compact -o", "compact --strategy trim-tools -o c.jsonl", "c.jsonl");
    }
    void reportAndMarkdown()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, output);
        std::vector<std::string> a = {args[0].toStdString(), m_session};
        for (qsizetype i = 1; i < args.size(); ++i)
            a.push_back(args[i] == output ? path(output.toStdString()) : args[i].toStdString());
        a.push_back("--force");
        const auto plain = runCli(a);
        QVERIFY2(plain.code != cli::Exit::Failure, (plain.out + plain.err).c_str());
        const std::string unredacted = readFile(path(output.toStdString()));
        QVERIFY2(!leaks(unredacted).empty(), "without --redact the secrets are written (the test's control)");
        a.push_back("--redact-patterns");
        a.push_back(m_patterns);
        const auto r = runCli(a);
        QVERIFY2(r.code != cli::Exit::Failure, (r.out + r.err).c_str());
        const std::string bytes = readFile(path(output.toStdString()));
        QVERIFY2(leaks(bytes).empty(), leaks(bytes).c_str());
        QVERIFY2(bytes.find("[REDACTED:") != std::string::npos, "placeholders written");
        if (output.startsWith(QLatin1String("t.")) || output.startsWith(QLatin1String("c."))) // a report shows excerpts only
            QVERIFY2(missingNearMisses(bytes).empty(), missingNearMisses(bytes).c_str());
        QVERIFY2((r.out + r.err).find("redacted ") != std::string::npos, (r.out + r.err).c_str());
        if (output == QLatin1String("t.md"))
            QVERIFY2(bytes.find("](https://tracker.example/p.png)") != std::string::npos
                         && bytes.find("![chart](https://tracker.example") == std::string::npos,
                     "a remote image becomes a link");
        QCOMPARE(readFile(m_session), m_original);
    }

    // Finding 13 without redaction: --no-remote-images; and the rewrite itself.
    void remoteImages()
    {
        const std::string out = path("images.md");
        auto r = runCli({"export-markdown", m_session, "-o", out, "--force"});
        QCOMPARE(r.code, int(cli::Exit::Success));
        QVERIFY(readFile(out).find("![chart](https://tracker.example/p.png)") != std::string::npos);
        r = runCli({"export-markdown", m_session, "-o", out, "--force", "--no-remote-images"});
        QCOMPARE(r.code, int(cli::Exit::Success));
        QVERIFY(readFile(out).find("![chart](https://") == std::string::npos);
        QVERIFY(readFile(out).find("[image: chart](https://tracker.example/p.png)") != std::string::npos);
        std::size_t n = 0;
        const std::string md = "a ![x](http://h/p.png) ![local](./a.png) ![d](data:image/png;base64,AA) ![r][ref]\n```\n![kept](http://h/c.png)\n```\n";
        QCOMPARE(report::neutraliseRemoteImages(md, &n),
                 std::string("a [image: x](http://h/p.png) ![local](./a.png) ![d](data:image/png;base64,AA) [image: r][ref]\n```\n![kept](http://h/c.png)\n```\n"));
        QCOMPARE(n, std::size_t(2));
    }

    // Finding 3: a report or Markdown never replaces its session, whatever the flags, and the
    // refusal does not suggest --force.
    void neverOverTheSession_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QString>("how");
        for (const char *c : {"report", "export-markdown"})
            for (const char *h : {"same", "symlink", "hardlink"})
                QTest::newRow((std::string(c) + " " + h).c_str()) << QString::fromLatin1(c) << QString::fromLatin1(h);
    }
    void neverOverTheSession()
    {
        QFETCH(QString, command);
        QFETCH(QString, how);
        const std::string session = path("victim.jsonl");
        writeFile(session, m_original);
        std::string out = session;
        if (how != QLatin1String("same")) {
            out = path("victim-" + how.toStdString() + (command == QLatin1String("report") ? ".html" : ".md"));
            std::filesystem::remove(out);
            if (how == QLatin1String("symlink"))
                std::filesystem::create_symlink(session, out);
            else
                std::filesystem::create_hard_link(session, out);
        }
        for (const bool force : {false, true}) {
            std::vector<std::string> a = {command.toStdString(), session, "-o", out};
            if (command == QLatin1String("report"))
                a.insert(a.end(), {"--to", "html", "--strategies", "none"});
            if (force)
                a.push_back("--force");
            const auto r = runCli(a);
            QCOMPARE(r.code, int(cli::Exit::Failure));
            QVERIFY2(r.err.find("--force") == std::string::npos, r.err.c_str());
            QVERIFY2(r.err.find("itself") != std::string::npos, r.err.c_str());
            QCOMPARE(readFile(session), m_original);
        }
    }

    // compact --redact is for a copy only.
    void compactRedactNeedsOutput()
    {
        const auto r = runCli({"compact", m_session, "--strategy", "trim-tools", "--in-place", "--redact"});
        QCOMPARE(r.code, int(cli::Exit::Failure));
        QCOMPARE(readFile(m_session), m_original);
    }

    // The GUI: the dialog lists the hits per rule and message (masked), with the option on by
    // default for reports and Markdown, off for exports; the window's writers honour it.
    void guiDialogListsHits()
    {
        LoadOptions lo;
        lo.loadSubagents = false;
        const LoadResult loaded = loadFile(m_session, lo);
        QVERIFY(loaded.ok());
        gui::RedactionDialog report(loaded.transcript, gui::RedactionDialog::Purpose::Report);
        QVERIFY(report.redactBox()->isChecked());
        gui::RedactionDialog exportDialog(loaded.transcript, gui::RedactionDialog::Purpose::Export);
        QVERIFY(!exportDialog.redactBox()->isChecked());
        QTableWidget *table = report.hitsTable();
        QVERIFY(table->rowCount() >= int(planted().size()) - 1); // the user's pattern is not in the built-in rules
        QStringList rules;
        QString all;
        for (int row = 0; row < table->rowCount(); ++row) {
            rules << table->item(row, 0)->text();
            for (int c = 0; c < table->columnCount(); ++c)
                all += table->item(row, c)->text() + QLatin1Char('\n');
        }
        QVERIFY(rules.contains(QStringLiteral("anthropic-key")));
        QVERIFY(rules.contains(QStringLiteral("private-key")));
        QVERIFY2(leaks(all.toStdString()).empty(), qPrintable(all)); // excerpts are masked
        // The anthropic key is in messages 1 and 4 (1-based): a row for each.
        int anthropicRows = 0;
        for (int row = 0; row < table->rowCount(); ++row)
            anthropicRows += table->item(row, 0)->text() == QLatin1String("anthropic-key");
        QCOMPARE(anthropicRows, 2);
        QVERIFY(report.summaryText().contains(QStringLiteral("anthropic-key")));
    }

    void guiWritesRedacted()
    {
        gui::MainWindow w;
        QVERIFY(w.openFileNow(QString::fromStdString(m_session)));
        const QString md = QString::fromStdString(path("gui.md"));
        QString error;
        QVERIFY2(w.exportMarkdownTo(md, &error, true), qPrintable(error));
        QVERIFY2(leaks(readFile(md.toStdString())).empty(), leaks(readFile(md.toStdString())).c_str());
        QVERIFY(readFile(md.toStdString()).find("![chart](https://") == std::string::npos);
        QVERIFY2(w.exportMarkdownTo(md, &error, false), qPrintable(error));
        QVERIFY(!leaks(readFile(md.toStdString())).empty());

        const QString html = QString::fromStdString(path("gui.html"));
        QSignalSpy written(&w, &gui::MainWindow::reportWritten);
        QVERIFY2(w.exportReportTo(html, &error, true), qPrintable(error));
        QVERIFY(written.wait(120000));
        QVERIFY2(leaks(readFile(html.toStdString())).empty(), leaks(readFile(html.toStdString())).c_str());

        const QString exported = QString::fromStdString(path("gui-export.jsonl"));
        QVERIFY2(w.document()->exportTo(exported, Format::ClaudeCode, &error, false, gui::redactionRules()), qPrintable(error));
        const std::string bytes = readFile(exported.toStdString());
        QVERIFY2(leaks(bytes).empty(), leaks(bytes).c_str());
        QVERIFY(bytes.find("[REDACTED:anthropic-key:1]") != std::string::npos);
        QCOMPARE(readFile(m_session), m_original);
    }
};

QTEST_MAIN(TestRedact)
#include "tst_redact.moc"
