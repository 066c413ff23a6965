// SPDX-License-Identifier: MIT
// Bad input never crashes and never loses the rest of the file, whatever the format: every loader is
// fed mutated copies (truncated, bytes flipped, lines duplicated or dropped, garbage lines) of the real
// samples and of files written by the test itself. Records of JSONL formats must still cover the
// input byte-for-byte, and an untouched load must write back byte-for-byte.
#include "core/util/json.h"
#include "core/io/loader.h"
#include "core/io/writer.h"

#include <QDirIterator>
#include <QtTest>

#include <random>

using namespace cl;

namespace {

std::string readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray b = f.readAll();
    return std::string(b.constData(), std::size_t(b.size()));
}

struct Input {
    QString name;
    std::string bytes;
};

std::vector<Input> corpus()
{
    std::vector<Input> out;
    const QString samples = QStringLiteral(CL_SAMPLES_DIR);
    QDirIterator it(samples, {QStringLiteral("*.jsonl"), QStringLiteral("*.json")}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.contains(QStringLiteral("/schema/")))
            continue;
        out.push_back({QFileInfo(path).fileName(), readAll(path)});
    }
    // The project's own small inputs, one per format, so the test runs without ../shared too.
    QDirIterator own(QStringLiteral(CL_TEST_DATA_DIR "/robustness"), QDir::Files);
    while (own.hasNext()) {
        const QString path = own.next();
        out.push_back({QFileInfo(path).fileName(), readAll(path)});
    }
    return out;
}

// Loads with detection and with every explicit format; checks the invariants that must hold for any input.
void checkInvariants(const std::string &bytes, const QString &what)
{
    std::vector<std::optional<Format>> formats{std::nullopt};
    for (Format f : allFormats())
        formats.emplace_back(f);
    for (const auto &fmt : formats) {
        LoadOptions opts;
        opts.format = fmt;
        opts.loadSubagents = false;
        const LoadResult r = loadBytes(bytes, "mutated.jsonl", opts);
        QVERIFY2(r.ok(), qPrintable(what + QStringLiteral(": ") + QString::fromStdString(r.error)));
        const Transcript &t = *r.transcript;
        for (const auto &m : t.messages)
            for (auto rec : m.records)
                QVERIFY2(rec < t.records.size(), qPrintable(what));
        for (const auto &d : t.diagnostics)
            QVERIFY2(!d.toString().empty(), qPrintable(what));
        // Claude Code, Codex and Copilot CLI are always JSONL (Gemini CLI also has JSON-document shapes).
        if ((t.format == Format::ClaudeCode || t.format == Format::Codex || t.format == Format::CopilotCli) && !t.records.empty()) {
            std::size_t covered = 0;
            for (const auto &rec : t.records) {
                QVERIFY2(rec.offset == covered, qPrintable(what + QStringLiteral(": records must tile the file")));
                covered += rec.length;
            }
            QVERIFY2(covered == bytes.size() || t.records.empty(), qPrintable(what));
        }
        if (t.format != Format::Unknown) {
            const WriteResult w = writeTranscript(t, t.format);
            QVERIFY2(w.ok && w.bytes == bytes, qPrintable(what + QStringLiteral(": untouched write-back differs")));
        }
    }
}

} // namespace

class TestRobustness : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void mutations()
    {
        std::mt19937_64 rng(20261125);
        const auto inputs = corpus();
        QVERIFY(inputs.size() >= 6);
        for (const auto &in : inputs) {
            checkInvariants(in.bytes, in.name);
            for (int round = 0; round < 12; ++round) {
                std::string m = in.bytes;
                const auto pick = [&](std::size_t n) { return n ? std::size_t(rng() % n) : 0; };
                switch (round % 6) {
                case 0: m.resize(pick(m.size())); break; // truncated anywhere
                case 1:
                    for (int k = 0; k < 8; ++k)
                        if (!m.empty()) m[pick(m.size())] = char(rng());
                    break; // flips
                case 2: m.insert(pick(m.size()), "\n\x7bnot json at all\n"); break;
                case 3: m.insert(pick(m.size()), "\xFF\xFE\xC3("); break; // invalid UTF-8
                case 4: {                                                 // a line duplicated
                    const auto lines = json::splitLines(m);
                    if (!lines.empty()) {
                        const auto &l = lines[pick(lines.size())];
                        m.insert(l.offset, m.substr(l.offset, l.length));
                    }
                    break;
                }
                case 5: { // a line dropped
                    const auto lines = json::splitLines(m);
                    if (!lines.empty()) {
                        const auto &l = lines[pick(lines.size())];
                        m.erase(l.offset, l.length);
                    }
                    break;
                }
                }
                checkInvariants(m, in.name + QStringLiteral(" mutation ") + QString::number(round));
            }
        }
    }

    void hostileShapes()
    {
        const std::string deep = std::string(200000, '[') + std::string(200000, ']');
        checkInvariants(deep + "\n", QStringLiteral("deep nesting"));
        checkInvariants("\x7b\"type\":\"user\",\"message\":" + std::string(5000, '[') + "\n", QStringLiteral("deep line"));
        checkInvariants(std::string("\0\0\0\x01binary", 10), QStringLiteral("binary"));
        checkInvariants("\n\n\r\n  \n", QStringLiteral("blank lines"));
        checkInvariants("[]", QStringLiteral("empty array"));
        checkInvariants("{}", QStringLiteral("empty object"));
        checkInvariants("\x7b\"messages\": 5}", QStringLiteral("wrong type"));
        checkInvariants(readAll(QStringLiteral(CL_TEST_DATA_DIR "/robustness/wrong-types.jsonl")),
                        QStringLiteral("wrong field types"));
    }
};

QTEST_GUILESS_MAIN(TestRobustness)
#include "tst_robustness.moc"
