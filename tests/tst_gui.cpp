// SPDX-License-Identifier: MIT
// The real main window, offscreen: background loading, tree, detail pane, diagnostics, theme, and
// the --screenshot path.
#include "widgets/transcript/builtinhighlighter.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/mainwindow/commandline.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/mainwindow/diagnosticspanel.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/models/diagnosticsmodel.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/mainwindow/screenshot.h"
#include "widgets/mainwindow/statuspanel.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QApplication>
#include <QHeaderView>
#include <QImage>
#include <QLineEdit>
#include <QSettings>
#include <QStatusBar>
#include <QStyleFactory>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <sys/stat.h>
#include <QTreeView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

// A small Claude Code session: a Read tool pair, an invalid line 4, and a closing answer.
const char kSession[] =
    R"({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-09-03T00:47:19.293Z","message":{"role":"user","content":"Show me main.py"}})"
    "\n"
    R"({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-09-03T00:47:20.000Z","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/work/demo/main.py"}}],"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":20}}})"
    "\n"
    R"({"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s","timestamp":"2025-09-03T00:47:21.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"def main():\n    print('hello from main')\n"}]}})"
    "\n"
    R"({"type":"user","uuid": this line is broken)"
    "\n"
    R"({"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s","timestamp":"2025-09-03T00:47:22.000Z","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"It prints a greeting."}],"usage":{"input_tokens":5,"cache_creation_input_tokens":50,"cache_read_input_tokens":1100,"output_tokens":8}}})"
    "\n";

QModelIndex findKind(const QAbstractItemModel &model, const QString &kind)
{
    for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex msg = model.index(r, 0);
        for (int b = 0; b < model.rowCount(msg); ++b)
            if (model.index(b, 0, msg).data(KindRole).toString() == kind)
                return model.index(b, 0, msg);
    }
    return {};
}

} // namespace

class TestGui : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("ContextLensTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_gui"));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); // "1,155" everywhere
        m_session = m_dir.filePath(QStringLiteral("session.jsonl"));
        QFile f(m_session);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kSession);
    }

    void openInBackground()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1200, 800);
        w.show();
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openFile(m_session);
        QVERIFY(w.isLoading());
        QTRY_COMPARE(finished.count(), 1);
        QVERIFY(!w.isLoading());
        QCOMPARE(finished.first().first().toBool(), true);

        // Four messages; the broken line is a diagnostic, not a row.
        TranscriptModel *model = w.transcriptPanel()->model();
        QCOMPARE(model->rowCount(), 4);
        QCOMPARE(int(w.transcript()->messages.size()), 4);
        QVERIFY(w.statusPanel()->summaryText().contains(QStringLiteral("claude-code")));
        QVERIFY(w.statusPanel()->summaryText().contains(QStringLiteral("4 messages")));
        // The live context starts from the last response's measured usage, 5 + 50 + 1100.
        QVERIFY2(w.statusPanel()->summaryText().contains(QStringLiteral("measured at message ")), qPrintable(w.statusPanel()->summaryText()));
        QCOMPARE(w.contextGauge()->measured(), 1155);
        QVERIFY(w.statusPanel()->summaryText().contains(QStringLiteral("1 tool call ")));

        // Selecting the tool_result fills the detail pane with its text, named after the Read path.
        const QModelIndex result = findKind(*model, QStringLiteral("tool_result"));
        QVERIFY(result.isValid());
        QCOMPARE(result.data(ToolNameRole).toString(), QStringLiteral("Read"));
        w.transcriptPanel()->selectSourceIndex(result);
        QVERIFY(w.detailPane()->text().contains(QStringLiteral("print('hello from main')")));
        QVERIFY(w.detailPane()->title().contains(QStringLiteral("main.py")));
        QVERIFY(w.detailPane()->titleToolTip().contains(QStringLiteral("/work/demo/main.py")));
        // The tool_use shows its input as indented JSON.
        w.transcriptPanel()->selectSourceIndex(findKind(*model, QStringLiteral("tool_use")));
        QVERIFY(w.detailPane()->text().contains(QStringLiteral("\"file_path\": \"/work/demo/main.py\"")));
        // Raw JSON shows the message's source line, pretty-printed.
        w.detailPane()->setRawMode(true);
        QVERIFY(w.detailPane()->text().contains(QStringLiteral("\"id\": \"toolu_1\"")));
        QVERIFY(w.detailPane()->text().contains(QStringLiteral("\n  \"type\": \"assistant\"")));
        w.detailPane()->setRawMode(false);

        // Diagnostics list the broken line 4; double-click on it has no message to jump to, but
        // line 3 (the tool result) does.
        DiagnosticsModel *diags = w.diagnosticsPanel()->model();
        bool line4 = false;
        for (int r = 0; r < diags->rowCount(); ++r)
            line4 |= diags->index(r, DiagnosticsModel::LocationColumn).data().toString() == QStringLiteral("session.jsonl:4");
        QVERIFY2(line4, "no diagnostic for the invalid line 4");
        // Recent files remember the session (absolute path, newest first).
        QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), QFileInfo(m_session).absoluteFilePath());
        // Settings (recent files, theme) go to this test process's own home in QStandardPaths' test
        // mode (tests/test_environment.cpp), never to the user's config.
        const QString config = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
        QVERIFY2(QDir::homePath().contains(QStringLiteral("contextlens-test-home")) && config.startsWith(QDir::homePath()),
                 qPrintable(config));
        QVERIFY(QFile::exists(config + QStringLiteral("/ContextLensTest/tst_gui.conf")));
        Q_EMIT w.diagnosticsPanel()->lineActivated(3);
        const QModelIndex current = w.transcriptPanel()->view()->currentIndex();
        QCOMPARE(current.data(MessageIndexRole).toInt(), result.parent().row());
        QCOMPARE(current.data(BlockIndexRole).toInt(), -1);
        // Double-clicking the line-4 diagnostic: no message comes from it, the selection stays.
        QTreeView *diagView = w.diagnosticsPanel()->view();
        for (int r = 0; r < diags->rowCount(); ++r)
            if (diags->index(r, 0).data(SourceLineRole).toInt() == 4)
                Q_EMIT diagView->doubleClicked(diags->index(r, DiagnosticsModel::MessageColumn));
        QCOMPARE(w.transcriptPanel()->view()->currentIndex(), current);
        QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("line 4")));

        // Typing in the filter narrows the tree after the debounce; the match is inside a block.
        w.transcriptPanel()->filterEdit()->setText(QStringLiteral("hello from main"));
        QCOMPARE(w.transcriptPanel()->view()->model()->rowCount(), 4);
        QTRY_COMPARE(w.transcriptPanel()->view()->model()->rowCount(), 1);
    }

    // The milestones of an open (bench/bench_gui.cpp times them): rows first, then everything the
    // window computes in the background; another transcript starts them over.
    void openMilestones()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1200, 800);
        w.show();
        OpenMilestones *milestones = OpenMilestones::of(&w);
        QVERIFY(milestones);
        QSignalSpy rows(milestones, &OpenMilestones::rowsShown);
        QSignalSpy finished(milestones, &OpenMilestones::finished);
        QStringList order;
        connect(milestones, &OpenMilestones::rowsShown, this, [&] { order << QStringLiteral("rows"); });
        connect(milestones, &OpenMilestones::finished, this, [&] { order << QStringLiteral("finished"); });
        w.openFile(m_session);
        QTRY_COMPARE(finished.count(), 1);
        QCOMPARE(rows.count(), 1);
        QCOMPARE(order, QStringList({QStringLiteral("rows"), QStringLiteral("finished")}));
        QVERIFY(milestones->hasShownRows() && milestones->isFinished());
        QVERIFY(milestones->analysisReady() && milestones->countsReady() && milestones->tablesReady());
        QVERIFY(w.analysis());

        w.openFile(m_session); // a new transcript object: the milestones start over
        QTRY_COMPARE(finished.count(), 2);
        QCOMPARE(rows.count(), 2);
    }

    void staleAndCancelledLoads()
    {
        const QString other = m_dir.filePath(QStringLiteral("other.jsonl"));
        QFile f(other);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray(kSession).split('\n').first() + '\n');
        f.close();

        MainWindow w;
        w.setShowErrorDialogs(false);
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        w.openFile(m_session);
        w.openFile(other); // the first result, whenever it arrives, is stale
        QTRY_COMPARE(finished.count(), 1);
        QTest::qWait(100);
        QCOMPARE(finished.count(), 1);
        QVERIFY(w.transcript());
        QCOMPARE(QString::fromStdString(w.transcript()->path), other);

        // Cancel: nothing is delivered, the window keeps what it had.
        const auto before = w.transcript();
        w.openFile(m_session);
        QVERIFY(w.isLoading());
        QMetaObject::invokeMethod(w.statusPanel(), "cancelRequested");
        QVERIFY(!w.isLoading());
        QTest::qWait(300);
        QCOMPARE(finished.count(), 1);
        QCOMPARE(w.transcript(), before);
    }

    void failedLoadNamesTheFile()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        const QString missing = m_dir.filePath(QStringLiteral("missing.jsonl"));
        QVERIFY(!w.openFileNow(missing));
        QVERIFY(w.lastError().contains(QStringLiteral("missing.jsonl")));
        // A folder is named as one (it used to read as "larger than 4 GiB").
        QVERIFY(!w.openFileNow(m_dir.path()));
        QVERIFY2(w.lastError().contains(QStringLiteral("is a directory")), qPrintable(w.lastError()));
    }

    // A FIFO nobody writes to: the window stays responsive, and Cancel ends the wait.
    void fifoWithoutWriterCanBeCancelled()
    {
        const QString fifo = m_dir.filePath(QStringLiteral("idle.fifo"));
        QCOMPARE(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.openFile(fifo);
        QTest::qWait(300);
        QVERIFY(w.isLoading());
        QMetaObject::invokeMethod(w.statusPanel(), "cancelRequested");
        QVERIFY(!w.isLoading());
        QTest::qWait(300);
        QFile::remove(fifo);
    }

    void themeSwitch()
    {
        MainWindow w;
        w.show();
        w.setTheme(theme::Choice::Dark);
        QVERIFY(theme::isDark(QApplication::palette()));
        QTRY_VERIFY(theme::isDark(w.detailPane()->palette()));
        QTRY_VERIFY(w.detailPane()->highlightsDark());
        QCOMPARE(theme::saved(), theme::Choice::Dark);
        w.setTheme(theme::Choice::Light);
        QVERIFY(!theme::isDark(QApplication::palette()));
        QTRY_VERIFY(!theme::isDark(w.detailPane()->palette()));
        QTRY_VERIFY(!w.detailPane()->highlightsDark());
        QCOMPARE(theme::saved(), theme::Choice::Light);
    }

    void commandLine()
    {
        const CommandLine c = parseCommandLine({QStringLiteral("contextlens"), QStringLiteral("--screenshot"), QStringLiteral("o.png"),
                                                QStringLiteral("--size"), QStringLiteral("800x600"), QStringLiteral("--theme"),
                                                QStringLiteral("dark"), QStringLiteral("--format"), QStringLiteral("codex"),
                                                QStringLiteral("f.jsonl")});
        QVERIFY2(c.error.isEmpty(), qPrintable(c.error));
        QCOMPARE(c.screenshot, QStringLiteral("o.png"));
        QCOMPARE(c.size, QSize(800, 600));
        QCOMPARE(c.file, QStringLiteral("f.jsonl"));
        QVERIFY(c.theme && *c.theme == theme::Choice::Dark);
        QVERIFY(c.format && *c.format == Format::Codex);
        QCOMPARE(parseCommandLine({QStringLiteral("contextlens")}).size, QSize(1400, 860));
        QVERIFY(!parseCommandLine({QStringLiteral("contextlens"), QStringLiteral("--size"), QStringLiteral("big")}).error.isEmpty());
        QVERIFY(!parseCommandLine({QStringLiteral("contextlens"), QStringLiteral("--format"), QStringLiteral("nope")}).error.isEmpty());
        QVERIFY(!parseCommandLine({QStringLiteral("contextlens"), QStringLiteral("--screenshot"), QStringLiteral("x.png")}).error.isEmpty());
    }

    void screenshot_data()
    {
        QTest::addColumn<QString>("themeName");
        QTest::newRow("light") << QStringLiteral("light");
        QTest::newRow("dark") << QStringLiteral("dark");
    }

    void screenshot()
    {
        QFETCH(QString, themeName);
        CommandLine cmd;
        cmd.file = m_session;
        cmd.screenshot = m_dir.filePath(QStringLiteral("shot-%1.png").arg(themeName));
        cmd.size = QSize(1000, 700);
        theme::Choice choice;
        QVERIFY(theme::fromName(themeName, &choice));
        theme::apply(choice);
        const int rc = takeScreenshot(cmd);
        QVERIFY(QFileInfo(cmd.screenshot).size() > 0);
        const QImage image(cmd.screenshot);
        QCOMPARE(image.size(), QSize(1000, 700));
        if (qEnvironmentVariableIsSet("CL_KEEP_SCREENSHOTS"))
            QFile::copy(cmd.screenshot, QStringLiteral("/tmp/tst_gui-shot-%1.png").arg(themeName));
        MainWindow probe;
        probe.setShowErrorDialogs(false);
        probe.openFileNow(m_session);
        QCOMPARE(rc, 0);
        // Dark mode really is dark: the image's top-left corner (menu bar) follows the palette.
        QCOMPARE(theme::isDark(QPalette(image.pixelColor(2, 2))), themeName == QStringLiteral("dark"));

        CommandLine bad = cmd;
        bad.file = m_dir.filePath(QStringLiteral("missing.jsonl"));
        QCOMPARE(takeScreenshot(bad), 1);
        theme::apply(theme::Choice::Light);
    }

    void builtinHighlighter()
    {
        using Mode = BuiltinHighlighter::Mode;
        QCOMPARE(BuiltinHighlighter::guessMode(QStringLiteral("  {\"a\": 1}")), Mode::Json);
        QCOMPARE(BuiltinHighlighter::guessMode(QStringLiteral("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b")), Mode::Diff);
        QCOMPARE(BuiltinHighlighter::guessMode(QStringLiteral("total 8\nfile_a")), Mode::Shell);

        QTextDocument doc(QStringLiteral("@@ -1 +1 @@\n-old line\n+new line\n context"));
        BuiltinHighlighter hl(&doc);
        hl.setMode(Mode::Diff);
        const auto colourOf = [&doc](int blockNumber) {
            const auto formats = doc.findBlockByNumber(blockNumber).layout()->formats();
            return formats.isEmpty() ? QColor() : formats.first().format.foreground().color();
        };
        const QColor removedLight = colourOf(1);
        const QColor addedLight = colourOf(2);
        QVERIFY(removedLight.red() > removedLight.green());
        QVERIFY(addedLight.green() > addedLight.red());
        QVERIFY(!colourOf(3).isValid()); // context lines keep the palette's text colour
        // Dark palette: re-highlighted with lighter colours that read on a dark base.
        hl.setDark(true);
        QVERIFY(colourOf(2).lightness() > addedLight.lightness());

        QTextDocument json(QStringLiteral("{\"key\": \"value\", \"n\": 42, \"ok\": true}"));
        BuiltinHighlighter jhl(&json);
        jhl.setMode(Mode::Json);
        const auto formats = json.firstBlock().layout()->formats();
        QCOMPARE(formats.size(), 6); // three keys, a string, a number, a keyword
        QCOMPARE(formats.first().start, 1);
        QCOMPARE(formats.first().length, 5); // "key" with its quotes
        QVERIFY(formats.first().format.fontWeight() == QFont::Bold);
    }

    // The Preview column takes what the other columns leave, never less than its minimum (the tree
    // scrolls sideways then), and keeps a width the user gave it.
    void previewColumnFillsTheTree()
    {
        TranscriptPanel panel;
        panel.resize(700, 500);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QHeaderView *header = panel.view()->header();
        const auto others = [&] {
            int sum = 0;
            for (int c = 0; c < header->count(); ++c)
                if (c != TranscriptModel::PreviewColumn && !header->isSectionHidden(c))
                    sum += header->sectionSize(c);
            return sum;
        };
        // Narrow: the analysis columns do not squeeze it below its minimum.
        QVERIFY(others() + TranscriptPanel::kMinPreviewWidth > panel.view()->viewport()->width());
        QCOMPARE(header->sectionSize(TranscriptModel::PreviewColumn), TranscriptPanel::kMinPreviewWidth);
        // Wide: it fills the rest exactly.
        panel.resize(2200, 500);
        QTRY_COMPARE(header->sectionSize(TranscriptModel::PreviewColumn), panel.view()->viewport()->width() - others());
        // A narrower Role column gives its pixels to Preview.
        const int before = header->sectionSize(TranscriptModel::PreviewColumn);
        header->resizeSection(TranscriptModel::RoleColumn, header->sectionSize(TranscriptModel::RoleColumn) - 40);
        QCOMPARE(header->sectionSize(TranscriptModel::PreviewColumn), before + 40);
        // Sized by hand, it stays so.
        header->resizeSection(TranscriptModel::PreviewColumn, 400);
        panel.resize(1800, 500);
        QApplication::processEvents();
        QCOMPARE(header->sectionSize(TranscriptModel::PreviewColumn), 400);
    }

    void fileHintFromPairedToolUse()
    {
        Transcript t;
        Message a;
        Block use;
        use.type = BlockType::ToolUse;
        use.input = nlohmann::json{{"path", "src/app.cpp"}};
        a.blocks.push_back(use);
        t.messages.push_back(a);
        Block result;
        result.type = BlockType::ToolResult;
        result.pairMessage = 0;
        result.pairBlock = 0;
        QCOMPARE(DetailPane::fileHint(t, result), QStringLiteral("src/app.cpp"));
        result.pairBlock = 5; // out of range stays harmless
        QCOMPARE(DetailPane::fileHint(t, result), QString());
    }

private:
    QTemporaryDir m_dir;
    QString m_session;
};

QTEST_MAIN(TestGui)
#include "tst_gui.moc"
