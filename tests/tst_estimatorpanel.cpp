// SPDX-License-Identifier: MIT
// The estimator error table of the analysis panel: the same numbers as estimatorErrorTable(), one row
// per content type, computed in the background (newest transcript wins), the reason when the
// vocabulary is missing, warning shading in light and dark palettes, and the main window's wiring.
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/estimatorreport.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/style/theme.h"

#include "core/tokens/bpe.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/tokens/counts.h"

#include "test_support.h"

#include <QApplication>
#include <QLocale>
#include <QScrollBar>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>
#include <QtTest>

#include <fstream>

using namespace cl;
using namespace cl::gui;
namespace tc = cl::tokencount;

namespace {

const bool kEnvironment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    // The exact vocabulary: CONTEXTLENS_VOCAB_DIR when set, else this build's vocab/ if fetched.
    if (qEnvironmentVariableIsEmpty("CONTEXTLENS_VOCAB_DIR") && QFile::exists(QStringLiteral(CL_BINARY_DIR "/vocab/o200k_base.tiktoken")))
        qputenv("CONTEXTLENS_VOCAB_DIR", CL_BINARY_DIR "/vocab");
    return true;
}();

Message textMessage(Role role, std::string text)
{
    Message m;
    m.role = role;
    Block b;
    b.type = BlockType::Text;
    b.text = std::move(text);
    m.blocks.push_back(std::move(b));
    return m;
}

// A generated session (prose, code, JSON tool inputs, Chinese requests) plus a CJK and a base64 text,
// so every content type has samples. `messages` sets its size.
std::shared_ptr<const Transcript> session(std::size_t messages, std::uint64_t seed)
{
    gen::Options o;
    o.format = Format::Anthropic;
    o.messages = messages;
    o.seed = seed;
    o.chineseShare = 0.5;
    Transcript t = gen::generateTranscript(o);
    t.messages.push_back(textMessage(Role::User, "请帮我检查这个函数为什么在处理空列表时会崩溃，并给出修复方案和测试用例。谢谢！"));
    std::string b64;
    for (int i = 0; i < 40; ++i)
        b64 += "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk" + std::to_string(i % 10);
    t.messages.push_back(textMessage(Role::User, b64));
    return std::make_shared<const Transcript>(std::move(t));
}

std::shared_ptr<const bpe::Tokenizer> o200k()
{
    return bpe::Tokenizer::load(bpe::Encoding::O200kBase);
}

QString cellText(const QTextTableCell &cell)
{
    QTextCursor c = cell.firstCursorPosition();
    c.setPosition(cell.lastCursorPosition().position(), QTextCursor::KeepAnchor);
    return c.selectedText().trimmed();
}

// The estimator table of the session view: the table whose first header cell is "content type".
QTextTable *estimatorTable(QTextDocument *doc)
{
    for (QTextFrame *f : doc->rootFrame()->childFrames())
        if (auto *table = qobject_cast<QTextTable *>(f); table && table->columns() == 7 && cellText(table->cellAt(0, 0)) == u"type")
            return table;
    return nullptr;
}

// Checks one table row against a core ReportRow: texts and the shading of the error cells.
void checkRow(QTextTable *table, int row, const QString &label, const tc::ReportRow &r, bool dark)
{
    QCOMPARE(cellText(table->cellAt(row, 0)), label);
    QCOMPARE(cellText(table->cellAt(row, 1)), QLocale().toString(qulonglong(r.samples)));
    QCOMPARE(cellText(table->cellAt(row, 2)), QLocale().toString(qlonglong(r.exact)));
    QCOMPARE(cellText(table->cellAt(row, 3)), QLocale().toString(qlonglong(r.estimator)));
    QCOMPARE(cellText(table->cellAt(row, 5)), QLocale().toString(qlonglong(r.charsDiv4)));
    const double errs[2] = {r.estimatorErrorPercent(), r.charsErrorPercent()};
    for (int k = 0; k < 2; ++k) {
        const QTextTableCell cell = table->cellAt(row, 4 + 2 * k);
        // The percent by hand: one decimal, signed.
        const double rounded = std::round(errs[k] * 10) / 10;
        const QString expected = rounded == 0 ? QStringLiteral("0.0%")
                                              : QStringLiteral("%1%2%").arg(rounded > 0 ? QStringLiteral("+") : QString()).arg(rounded, 0, 'f', 1);
        QCOMPARE(cellText(cell), expected);
        const QBrush bg = cell.format().background();
        if (std::abs(errs[k]) > 15.0)
            QCOMPARE(bg.color(), estimatorWarningColor(dark));
        else
            QVERIFY(bg.style() == Qt::NoBrush || bg.color() != estimatorWarningColor(dark));
    }
}

void checkPanelTable(AnalysisPanel &panel, const tc::ErrorTable &expected, bool dark)
{
    QTextTable *table = estimatorTable(panel.sessionView()->document());
    QVERIFY(table);
    QCOMPARE(table->rows(), int(expected.rows.size()) + 2); // header, rows, total
    for (std::size_t i = 0; i < expected.rows.size(); ++i)
        checkRow(table, int(i) + 1, QString::fromUtf8(tc::contentTypeName(expected.rows[i].type).data()), expected.rows[i], dark);
    checkRow(table, table->rows() - 1, QStringLiteral("total"), expected.total, dark);
}

} // namespace

class TestEstimatorPanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void tableMatchesCore()
    {
        const auto tok = o200k();
        CL_REQUIRE(tok, "no o200k_base vocabulary (set CONTEXTLENS_VOCAB_DIR, scripts/fetch-vocab.sh)");
        const auto t = session(60, 7);
        const tc::ErrorTable expected = tc::estimatorErrorTable(*t, *tok);
        // The generated data must cover every content type, or the test checks less than it says.
        QCOMPARE(expected.rows.size(), std::size_t(5));
        bool anyWarn = false;
        for (const auto &r : expected.rows)
            anyWarn = anyWarn || std::abs(r.charsErrorPercent()) > 15 || std::abs(r.estimatorErrorPercent()) > 15;
        QVERIFY(anyWarn); // base64 against chars/4 at least: the shading is exercised

        AnalysisPanel panel;
        panel.setPalette(theme::lightPalette());
        QSignalSpy ready(panel.estimatorReport(), &EstimatorReport::ready);
        panel.setAnalysis(t, nullptr);
        QVERIFY(panel.estimatorReport()->isComputing());
        QVERIFY(panel.sessionView()->toPlainText().contains(QStringLiteral("computing…")));
        QVERIFY(panel.sessionView()->toPlainText().contains(QStringLiteral("Estimator accuracy (exact o200k_base vs estimates)")));
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 120000);
        QCOMPARE(panel.estimatorReport()->state(), EstimatorReport::State::Ready);
        QVERIFY(!panel.sessionView()->toPlainText().contains(QStringLiteral("computing…")));
        checkPanelTable(panel, expected, false);

        // With the analysis too, the table follows the session part, and is not recomputed.
        panel.setAnalysis(t, std::make_shared<const analysis::Analysis>(analysis::analyze(*t, {})));
        QVERIFY(panel.sessionView()->toPlainText().contains(QStringLiteral("Recommended strategy")));
        QCOMPARE(panel.estimatorReport()->state(), EstimatorReport::State::Ready);
        checkPanelTable(panel, expected, false);

        // A dark palette re-renders with the dark warning tint.
        panel.setPalette(theme::darkPalette());
        QVERIFY(estimatorWarningColor(true) != estimatorWarningColor(false));
        checkPanelTable(panel, expected, true);
        QCOMPARE(ready.count(), 1);

        // CL_ESTIMATOR_GRAB=DIR: the panel at the analysis dock's width, scrolled to the table, in
        // both palettes (to look at; nothing is compared).
        if (const QString dir = qEnvironmentVariable("CL_ESTIMATOR_GRAB"); !dir.isEmpty()) {
            panel.resize(350, 760);
            panel.show();
            QVERIFY(QTest::qWaitForWindowExposed(&panel));
            for (const bool dark : {false, true}) {
                panel.setPalette(dark ? theme::darkPalette() : theme::lightPalette());
                QCoreApplication::processEvents();
                panel.sessionView()->verticalScrollBar()->setValue(panel.sessionView()->verticalScrollBar()->maximum());
                QVERIFY(panel.grab().save(dir + (dark ? QStringLiteral("/estimator-dark.png") : QStringLiteral("/estimator-light.png"))));
            }
        }
    }

    void unavailableWithoutVocabulary()
    {
        QTemporaryDir empty;
        QVERIFY(empty.isValid());
        AnalysisPanel panel;
        panel.estimatorReport()->setVocabDir(empty.path());
        QSignalSpy unavailable(panel.estimatorReport(), &EstimatorReport::unavailable);
        panel.setAnalysis(session(10, 3), nullptr);
        QTRY_COMPARE_WITH_TIMEOUT(unavailable.count(), 1, 60000);
        QCOMPARE(panel.estimatorReport()->state(), EstimatorReport::State::Unavailable);
        const QString reason = unavailable.at(0).at(0).toString();
        QVERIFY(reason.contains(empty.path()));
        QVERIFY(reason.contains(QStringLiteral("scripts/fetch-vocab.sh")));
        const QString text = panel.sessionView()->toPlainText();
        QVERIFY(text.contains(QStringLiteral("Estimator accuracy (exact o200k_base vs estimates)")));
        QVERIFY(text.contains(QStringLiteral("Not available")));
        QVERIFY(text.contains(QStringLiteral("scripts/fetch-vocab.sh")));
        QVERIFY(!estimatorTable(panel.sessionView()->document()));
        // No transcript: no section at all.
        panel.setAnalysis(nullptr, nullptr);
        QCOMPARE(panel.estimatorReport()->state(), EstimatorReport::State::Idle);
        QVERIFY(!panel.sessionView()->toPlainText().contains(QStringLiteral("Estimator accuracy")));
    }

    void newerTranscriptWins()
    {
        const auto tok = o200k();
        CL_REQUIRE(tok, "no o200k_base vocabulary (set CONTEXTLENS_VOCAB_DIR, scripts/fetch-vocab.sh)");
        const auto big = session(400, 11), small = session(20, 5);
        const tc::ErrorTable expectSmall = tc::estimatorErrorTable(*small, *tok);
        QVERIFY(tc::estimatorErrorTable(*big, *tok).total.exact != expectSmall.total.exact);
        AnalysisPanel panel;
        QSignalSpy ready(panel.estimatorReport(), &EstimatorReport::ready);
        panel.setAnalysis(big, nullptr);
        // Set while the first is computing: no event has run, so its result cannot have arrived.
        QVERIFY(panel.estimatorReport()->isComputing());
        panel.setAnalysis(small, nullptr);
        QCOMPARE(panel.estimatorReport()->transcript(), small);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 120000);
        // Let the first run finish and its (stale) result reach the event loop: it is dropped.
        backgroundPool()->waitForDone();
        QTest::qWait(50);
        QCoreApplication::processEvents();
        QCOMPARE(ready.count(), 1);
        QCOMPARE(panel.estimatorReport()->table().total.exact, expectSmall.total.exact);
        checkPanelTable(panel, expectSmall, theme::isDark(panel.palette()));
    }

    // Apply and undo hand the report a transcript that differs in a few blocks: only those are
    // counted again, and the table is still that of the whole transcript.
    void editedTranscriptCountsOnlyChanges()
    {
        const auto tok = o200k();
        CL_REQUIRE(tok, "no o200k_base vocabulary (set CONTEXTLENS_VOCAB_DIR, scripts/fetch-vocab.sh)");
        const auto original = session(200, 3);
        auto editedCopy = std::make_shared<Transcript>(*original);
        std::size_t changed = 0;
        for (auto &m : editedCopy->messages)
            if (m.role == Role::User && !m.blocks.empty() && m.blocks[0].type == BlockType::Text) {
                m.blocks[0].text = "A request rewritten by a strategy, number " + std::to_string(changed);
                if (++changed == 3)
                    break;
            }
        QCOMPARE(changed, std::size_t(3));
        const std::shared_ptr<const Transcript> edited = editedCopy;
        AnalysisPanel panel;
        EstimatorReport *report = panel.estimatorReport();
        QSignalSpy ready(report, &EstimatorReport::ready);
        panel.setAnalysis(original, nullptr);
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
        const std::size_t counted = report->countedSamples();
        QVERIFY(counted > 100);
        panel.setAnalysis(edited, nullptr); // "apply"
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 2, 60000);
        QCOMPARE(report->countedSamples(), counted + 3);
        checkPanelTable(panel, tc::estimatorErrorTable(*edited, *tok), theme::isDark(panel.palette()));
        panel.setAnalysis(original, nullptr); // "undo": everything is known
        QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 3, 60000);
        QCOMPARE(report->countedSamples(), counted + 3);
        checkPanelTable(panel, tc::estimatorErrorTable(*original, *tok), theme::isDark(panel.palette()));
    }

    // Real sessions: the panel's table is estimatorErrorTable() of the loaded file.
    void samples()
    {
        const auto tok = o200k();
        CL_REQUIRE(tok, "no o200k_base vocabulary (set CONTEXTLENS_VOCAB_DIR, scripts/fetch-vocab.sh)");
        CL_REQUIRE(QFile::exists(QStringLiteral(CL_SAMPLES_DIR)), "no sample transcripts");
        for (const char *name : {"claude-code/viewer-sample-edits.jsonl", "codex/fixture-rollout.jsonl", "gemini/fixture-session.jsonl"}) {
            LoadResult r = loadFile(std::string(CL_SAMPLES_DIR) + "/" + name);
            QVERIFY2(r.ok(), name);
            const tc::ErrorTable expected = tc::estimatorErrorTable(*r.transcript, *tok);
            QVERIFY2(!expected.rows.empty(), name);
            AnalysisPanel panel;
            QSignalSpy ready(panel.estimatorReport(), &EstimatorReport::ready);
            panel.setAnalysis(r.transcript, nullptr);
            QTRY_COMPARE_WITH_TIMEOUT(ready.count(), 1, 60000);
            checkPanelTable(panel, expected, theme::isDark(panel.palette()));
        }
    }

    // The main window starts the report when it shows a transcript; openFileNow fills it at once.
    void mainWindowWiring()
    {
        const auto tok = o200k();
        CL_REQUIRE(tok, "no o200k_base vocabulary (set CONTEXTLENS_VOCAB_DIR, scripts/fetch-vocab.sh)");
        QTemporaryDir dir;
        gen::Options o;
        o.messages = 30;
        o.seed = 4;
        const std::string bytes = gen::generate(o);
        const QString path = dir.filePath(QStringLiteral("s.jsonl"));
        std::ofstream(path.toStdString(), std::ios::binary) << bytes;
        MainWindow w;
        w.setShowErrorDialogs(false);
        QVERIFY(w.openFileNow(path));
        EstimatorReport *report = w.analysisPanel()->estimatorReport();
        QCOMPARE(report->state(), EstimatorReport::State::Ready);
        QCOMPARE(report->transcript(), w.transcript());
        const tc::ErrorTable expected = tc::estimatorErrorTable(*w.transcript(), *tok);
        QCOMPARE(report->table().total.exact, expected.total.exact);
        checkPanelTable(*w.analysisPanel(), expected, theme::isDark(w.analysisPanel()->palette()));
    }
};

QTEST_MAIN(TestEstimatorPanel)
#include "tst_estimatorpanel.moc"
