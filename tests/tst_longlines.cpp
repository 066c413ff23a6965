// SPDX-License-Identifier: MIT
// Nothing the file holds may freeze the window (issue 29, finding 9): sessions whose first message is
// one long unbroken line (800 KB of hex, 1 MB of "x", 20 MB of "x") open in the real main window,
// offscreen, and the detail pane and its raw JSON view show a bounded head with the right "more"
// label, while Copy All and Save As… still give the whole text. Before the fix the window laid the
// line out in one piece on the GUI thread (96 s for the hex, minutes for the rest): the test function
// timeout below (QTEST_FUNCTION_TIMEOUT) fails it.
// Also (issue 29, finding 15) a session whose file name is not UTF-8 opens from every way in: the
// open call, the command line, drag and drop, recent files, and it can be saved and followed live.
#include "widgets/mainwindow/commandline.h"
#include "widgets/mainwindow/livewatch.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/recentfiles.h"
#include "widgets/models/filenames.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/transcript/longlinetextview.h"
#include "widgets/transcript/transcriptdocument.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLocale>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTreeView>
#include <QtTest>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = [] {
    // A hung GUI thread fails the test function instead of running until CTest's timeout.
    if (qEnvironmentVariableIsEmpty("QTEST_FUNCTION_TIMEOUT"))
        qputenv("QTEST_FUNCTION_TIMEOUT", "120000");
    return cl::test::guiEnvironment();
}();

std::string longText(const QByteArray &kind, std::size_t bytes)
{
    std::string s(bytes, 'x');
    if (kind == "hex")
        for (std::size_t i = 0; i < bytes; ++i)
            s[i] = "0123456789abcdef"[(i * 7 + i / 16) % 16];
    return s;
}

// A Claude Code session whose first user message is `text`, then a short answer.
void writeSession(const std::string &file, const std::string &text)
{
    std::ofstream out(file, std::ios::binary);
    out << R"({"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s","timestamp":"2025-09-03T00:47:19.293Z","message":{"role":"user","content":")"
        << text << "\"}}\n";
    out << R"({"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","timestamp":"2025-09-03T00:47:20.000Z","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":20}}})"
        << "\n";
}

QString sizeLabel(unsigned long long bytes)
{
    return QLocale().formattedDataSize(qint64(bytes), 1, QLocale::DataSizeSIFormat);
}

// Every paragraph of the shown document is short enough to lay out at once.
qsizetype longestBlock(const LongLineTextView *view)
{
    qsizetype longest = 0;
    for (QTextBlock b = view->document()->begin(); b.isValid(); b = b.next())
        longest = std::max<qsizetype>(longest, b.length());
    return longest;
}

} // namespace

class TestLongLines : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QCoreApplication::setOrganizationName(QStringLiteral("ContextLensTest"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_longlines"));
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        QSettings().clear();
    }

    // The view breaks long lines on screen only: text, selection and copy are the text as it is.
    void viewBreaksOnScreenOnly()
    {
        const QString run(5000, u'a');
        const QString text = QStringLiteral("first line\r\n") + run + QStringLiteral("\nwords ") + QString(3000, u'w')
                             + QStringLiteral(" end\r\nlast");
        LongLineTextView view;
        view.resize(400, 300);
        view.show();
        view.setText(text);
        QCOMPARE(view.text(), text);
        QVERIFY(view.insertedBreaks() >= 3);
        QVERIFY(longestBlock(&view) <= LongLineTextView::kMaxLineChars + 1);
        view.selectAll();
        QCOMPARE(view.selectedText(), text);
        view.copy();
        QCOMPARE(QGuiApplication::clipboard()->text(), text);
        // A selection across an on-screen break: from inside the run to past its end.
        // On screen the CR LF is one break and the run's first break follows its 2000th character.
        const qsizetype from = text.indexOf(run) + 1990;
        const int onScreen = int(from) - 1;
        QTextCursor c(view.document());
        c.setPosition(onScreen);
        c.setPosition(onScreen + 20 + 1, QTextCursor::KeepAnchor); // 20 characters and the break
        view.setTextCursor(c);
        QCOMPARE(view.selectedText(), text.mid(from, 20));
        view.copy();
        QCOMPARE(QGuiApplication::clipboard()->text(), text.mid(from, 20));
    }

    void opensLongLine_data()
    {
        QTest::addColumn<QByteArray>("kind");
        QTest::addColumn<qulonglong>("bytes");
        QTest::newRow("800 KB of hex") << QByteArray("hex") << qulonglong(800'000);
        QTest::newRow("1 MB of x") << QByteArray("x") << qulonglong(1'000'000);
        QTest::newRow("20 MB of x") << QByteArray("x") << qulonglong(20'000'000);
    }

    // The real window opens the session, selects the message and shows it; the detail pane shows
    // a bounded head, its raw JSON view too, and the whole text stays available.
    void opensLongLine()
    {
        QFETCH(QByteArray, kind);
        QFETCH(qulonglong, bytes);
        const std::string text = longText(kind, bytes);
        const QString path = m_dir.filePath(QStringLiteral("long-%1-%2.jsonl").arg(QString::fromLatin1(kind)).arg(bytes));
        writeSession(filenames::toBytes(path), text);

        MainWindow window;
        window.setShowErrorDialogs(false);
        window.resize(1400, 860);
        window.show();
        bool finished = false;
        bool loaded = false;
        connect(&window, &MainWindow::loadFinished, this, [&](bool ok) {
            finished = true;
            loaded = ok;
        });
        window.openFile(path);
        QTRY_VERIFY_WITH_TIMEOUT(finished, 60000);
        QVERIFY2(loaded, qPrintable(window.lastError()));
        QCOMPARE(window.transcript()->messages.at(0).blocks.at(0).text.size(), text.size());

        // The tree's row is elided: its preview is short whatever the message holds.
        TranscriptPanel *panel = window.transcriptPanel();
        const QModelIndex row = panel->model()->index(0, TranscriptModel::PreviewColumn);
        QVERIFY(row.data(Qt::DisplayRole).toString().size() <= 300);
        QVERIFY(row.data(Qt::ToolTipRole).toString().size() <= 1000);

        window.selectMessage(0);
        DetailPane *detail = window.detailPane();
        QTRY_VERIFY_WITH_TIMEOUT(detail->title().startsWith(QStringLiteral("Message 1")), 60000); // numbered from 1
        window.grab();                                                                            // lays out and paints what is visible, as the screen would
        const QString shown = detail->text();
        const QString head = QString::fromLatin1(text.data(), qsizetype(std::min<std::size_t>(text.size(), shown.size())));
        QVERIFY(shown.startsWith(head));
        QVERIFY(std::size_t(shown.size()) <= DetailPane::kShownBytes);
        QVERIFY(longestBlock(detail->view()) <= LongLineTextView::kMaxLineChars + 1);
        if (text.size() > DetailPane::kShownBytes) {
            QCOMPARE(std::size_t(shown.size()), DetailPane::kShownBytes);
            QCOMPARE(detail->hiddenBytes(), text.size() - DetailPane::kShownBytes);
            QCOMPARE(detail->moreText(), QStringLiteral("… %1 more not shown").arg(sizeLabel(text.size() - DetailPane::kShownBytes)));
        } else {
            QCOMPARE(std::size_t(shown.size()), text.size());
            QCOMPARE(detail->hiddenBytes(), 0ULL);
            QVERIFY(detail->moreText().isEmpty());
        }
        // The whole text, also what is not shown.
        QCOMPARE(std::size_t(detail->fullText().size()), text.size());
        const QString saved = m_dir.filePath(QStringLiteral("saved.txt"));
        QString why;
        QVERIFY2(detail->saveAs(saved, &why), qPrintable(why));
        QFile file(saved);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(file.readAll() == QByteArray::fromStdString(text));

        // The raw JSON view of the same message: bounded too.
        detail->setRawMode(true);
        window.grab();
        const QString raw = detail->text();
        QVERIFY(std::size_t(raw.size()) <= DetailPane::kShownBytes);
        QVERIFY(longestBlock(detail->view()) <= LongLineTextView::kMaxLineChars + 1);
        QVERIFY(raw.contains(QStringLiteral("\"type\"")));
        if (text.size() > DetailPane::kMaxPrettyBytes) {
            QVERIFY(raw.startsWith(QStringLiteral(R"({"type":"user")"))); // as in the file
            QVERIFY(detail->title().contains(QStringLiteral("as in the file")));
        }
        if (text.size() > DetailPane::kShownBytes) {
            QVERIFY(detail->hiddenBytes() > 0);
            QCOMPARE(detail->moreText(), QStringLiteral("… %1 more not shown").arg(sizeLabel(detail->hiddenBytes())));
            // Show More: eight times as much, still bounded, still responsive.
            const unsigned long long before = detail->hiddenBytes();
            detail->showMore();
            window.grab();
            QVERIFY(detail->hiddenBytes() < before);
            QVERIFY(std::size_t(detail->text().size()) <= 8 * DetailPane::kShownBytes);
        }
        detail->setRawMode(false);
    }

    // A message's whole text goes to the clipboard (Copy All), whatever is shown.
    void copyAllCopiesEverything()
    {
        const std::string text = longText("hex", 3'000'000);
        const QString path = m_dir.filePath(QStringLiteral("copy.jsonl"));
        writeSession(filenames::toBytes(path), text);
        MainWindow window;
        window.setShowErrorDialogs(false);
        window.resize(1000, 700);
        window.show();
        QVERIFY(window.openFileNow(path));
        window.selectMessage(0);
        DetailPane *detail = window.detailPane();
        QTRY_VERIFY(detail->hiddenBytes() > 0);
        detail->copyAll();
        QCOMPARE(QGuiApplication::clipboard()->text(), QString::fromLatin1(text.data(), qsizetype(text.size())));
    }

    // Names that are not UTF-8 survive QString and back; every other name converts as Qt's own.
    void fileNamesKeepTheirBytes()
    {
        const std::string raw = "/tmp/caf\xe9-\xff\xfe/s\xc3\xa9ssion \xf0\x9f\x98\x80.jsonl";
        const QString name = filenames::fromBytes(raw);
        QVERIFY(filenames::hasRawBytes(name));
        QCOMPARE(filenames::toBytes(name), raw);
        QVERIFY(name.contains(QStringLiteral("s\u00e9ssion \U0001F600.jsonl")));                            // the UTF-8 parts read as text
        QVERIFY(QFile::encodeName(QFile::decodeName(QByteArray::fromStdString(raw))).toStdString() != raw); // why
        const std::string utf8 = "/tmp/s\xc3\xa9ssion.jsonl";
        QCOMPARE(filenames::fromBytes(utf8), QFile::decodeName(QByteArray::fromStdString(utf8)));
        QVERIFY(!filenames::hasRawBytes(filenames::fromBytes(utf8)));
        QCOMPARE(filenames::toBytes(QStringLiteral("/tmp/s\u00e9ssion.jsonl")), utf8);
        // Overlong forms and encoded surrogates are not UTF-8 either.
        for (const std::string &bad : {std::string("/a\xc0\xaf"
                                                   "b"),
                                       std::string("/a\xed\xa0\x80"
                                                   "b"),
                                       std::string("/a\xf4\x90\x80\x80")})
            QCOMPARE(filenames::toBytes(filenames::fromBytes(bad)), bad);
        QCOMPARE(filenames::toBytes(filenames::fromUrl(QUrl::fromEncoded("file:///tmp/caf%E9.jsonl"))), std::string("/tmp/caf\xe9.jsonl"));
        QCOMPARE(filenames::fromUrl(QUrl::fromLocalFile(QStringLiteral("/tmp/s\u00e9ssion.jsonl"))), QStringLiteral("/tmp/s\u00e9ssion.jsonl"));
        QVERIFY(filenames::fromUrl(QUrl(QStringLiteral("https://example.com/x"))).isEmpty());
        char arg0[] = "contextlens";
        char arg1[] = "/tmp/caf\xe9.jsonl";
        char *argv[] = {arg0, arg1};
        const CommandLine cmd = parseCommandLine(argumentsOf(2, argv));
        QVERIFY(cmd.error.isEmpty());
        QCOMPARE(filenames::toBytes(cmd.file), std::string(arg1));
    }

    // The window opens, follows, saves and remembers a session whose name is not UTF-8.
    void opensNonUtf8Name()
    {
        const std::string raw = QFile::encodeName(m_dir.path()).toStdString() + "/caf\xe9-session.jsonl";
        writeSession(raw, "hello from a Latin-1 name");
        const QString path = filenames::fromBytes(raw);
        {
            MainWindow window;
            window.setShowErrorDialogs(false);
            window.show();
            bool finished = false;
            bool loaded = false;
            connect(&window, &MainWindow::loadFinished, this, [&](bool ok) {
                finished = true;
                loaded = ok;
            });
            window.openFile(path);
            QTRY_VERIFY_WITH_TIMEOUT(finished, 30000);
            QVERIFY2(loaded, qPrintable(window.lastError()));
            QCOMPARE(window.transcript()->path, raw);
            QCOMPARE(window.transcript()->messages.size(), std::size_t(2));
            QVERIFY(window.liveWatch()->isFollowing()); // View › Follow Live Session watches the same file
            QString why;
            QString backup;
            window.document()->setBackupRoot(m_dir.filePath(QStringLiteral("backups")));
            QVERIFY2(window.document()->saveInPlace(&why, &backup), qPrintable(why));
            QVERIFY(filenames::toBytes(backup).find("caf\xe9") != std::string::npos); // named as the file is
            struct stat st {};
            QCOMPARE(::stat(raw.c_str(), &st), 0);
        }
        // Recent files: remembered and offered again with the same bytes.
        {
            QMenu menu;
            RecentFiles recent(&menu);
            QVERIFY(!recent.files().isEmpty());
            QCOMPARE(filenames::toBytes(recent.files().first()), raw);
        }
        // Drag and drop: the URL's percent-encoded bytes, not its U+FFFD reading.
        {
            MainWindow window;
            window.setShowErrorDialogs(false);
            window.show();
            bool finished = false;
            connect(&window, &MainWindow::loadFinished, this, [&](bool) { finished = true; });
            QMimeData mime;
            const QByteArray encoded = QByteArray("file://") + QByteArray::fromStdString(raw).toPercentEncoding("/");
            mime.setUrls({QUrl::fromEncoded(encoded)}); // a QByteArray: Qt 6.8 takes no QStringBuilder here
            // As a drag does: enter (Qt delivers a drop only to a widget that accepted the enter), drop.
            QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &enter);
            QVERIFY(enter.isAccepted());
            QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&window, &drop);
            QVERIFY(drop.isAccepted());
            QTRY_VERIFY_WITH_TIMEOUT(finished, 30000);
            QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
            QVERIFY(window.transcript());
            QCOMPARE(window.transcript()->path, raw);
        }
    }

    void cleanupTestCase()
    {
        // QTemporaryDir removes by QString names: it cannot reach a name that is not UTF-8.
        std::filesystem::remove_all(QFile::encodeName(m_dir.path()).toStdString());
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestLongLines)
#include "tst_longlines.moc"
