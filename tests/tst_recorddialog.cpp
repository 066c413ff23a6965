// SPDX-License-Identifier: MIT
// File › Record an Agent… (widgets/mainwindow/recorddialog.h): the recording proxy run from the
// window, with real widgets against the fake upstream of tst_recordproxy. The recording goes to the
// app's data folder by default; Start listens on 127.0.0.1 and says how to start each agent through
// it; each exchange is counted as it is recorded; Stop ends it; a provider that is no URL is refused.
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/recorddialog.h"

#include "recordproxy_fixture.h"
#include "test_support.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace cl;
using namespace cl::gui;
using namespace cl::test;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();
} // namespace

class TestRecordDialog : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void defaultsToTheAppsDataFolder()
    {
        RecordDialog dialog;
        const QString path = dialog.pathEdit()->text();
        QVERIFY2(path.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/recordings/recording-")),
                 qPrintable(path));
        QVERIFY(path.endsWith(QStringLiteral(".jsonl")));
        QVERIFY(!dialog.isRecording());
        QVERIFY(dialog.statusText().contains(QStringLiteral("Not recording")));
    }

    void recordsAndCountsUntilStopped()
    {
        FakeUpstream upstream;
        QVERIFY(upstream.start());
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.pathEdit()->setText(dir.filePath(QStringLiteral("sub/run.jsonl"))); // its folder is made
        dialog.upstreamBox()->setEditText(upstream.url());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY2(dialog.start(), qPrintable(dialog.statusText()));
        const QString base = QStringLiteral("http://127.0.0.1:%1").arg(dialog.port());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("Recording")) && dialog.statusText().contains(base), qPrintable(dialog.statusText()));
        QVERIFY(dialog.commands()->toPlainText().contains(QStringLiteral("ANTHROPIC_BASE_URL=") + base + QStringLiteral(" claude")));
        QVERIFY(dialog.commands()->toPlainText().contains(QStringLiteral("OPENAI_BASE_URL=") + base + QStringLiteral("/v1 codex")));
        QVERIFY(!dialog.pathEdit()->isEnabled());   // fixed while it records
        QVERIFY(!dialog.openButton()->isEnabled()); // nothing recorded yet

        QTcpSocket client;
        client.connectToHost(QHostAddress::LocalHost, dialog.port());
        QVERIFY(client.waitForConnected(5000));
        client.write(post("/v1/echo", "hello through the window", "x-api-key: " + kSecret + "\r\n"));
        QByteArray raw;
        QVERIFY(QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 1 && r[0].complete; }, 5000));
        QCOMPARE(parseResponses(raw)[0].body, "hello through the window");
        QTRY_VERIFY2(dialog.statusText().contains(QStringLiteral("1 exchange so far")), qPrintable(dialog.statusText()));
        dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/record-dialog.png"));

        dialog.stop();
        QVERIFY(!dialog.isRecording());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("Stopped: 1 exchange")), qPrintable(dialog.statusText()));
        // Open Recording hands the recording to the window.
        QVERIFY(dialog.openButton()->isEnabled());
        QSignalSpy open(&dialog, &RecordDialog::openRequested);
        dialog.openButton()->click();
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.at(0).at(0).toString(), dir.filePath(QStringLiteral("sub/run.jsonl")));
        const std::vector<Json> lines = recordingLines(dir.filePath(QStringLiteral("sub/run.jsonl")));
        QVERIFY(find(lines, "request", 1) && find(lines, "response", 1));
        QCOMPARE(find(lines, "request", 1)->value("body", ""), std::string("hello through the window"));
        QFile file(dir.filePath(QStringLiteral("sub/run.jsonl")));
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains(kSecret));
        QTcpSocket late; // the port is closed
        late.connectToHost(QHostAddress::LocalHost, quint16(QUrl(base).port()));
        QVERIFY(!late.waitForConnected(1000));
    }

    // A strategy chosen before Start compacts each request on its way; the switch turns it off at once.
    void compactsOnTheWireUntilSwitchedOff()
    {
        FakeUpstream upstream;
        QVERIFY(upstream.start());
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.pathEdit()->setText(dir.filePath(QStringLiteral("run.jsonl")));
        dialog.upstreamBox()->setEditText(upstream.url());
        QVERIFY(!dialog.dryRunBox()->isEnabled()); // no strategy yet
        const int trim = dialog.strategyBox()->findData(QStringLiteral("trim-tools"));
        QVERIFY(trim > 0);
        dialog.strategyBox()->setCurrentIndex(trim);
        QVERIFY(dialog.dryRunBox()->isEnabled());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        QVERIFY2(dialog.start(), qPrintable(dialog.statusText()));
        QVERIFY(dialog.isCompacting());
        QVERIFY(!dialog.strategyBox()->isEnabled()); // fixed while it records; the switch is not
        QVERIFY(dialog.compactSwitch()->isEnabled());

        // Three tool rounds: trim-tools keeps the last one.
        Json messages = Json::array({{{"role", "user"}, {"content", "List the files."}}});
        for (int i = 1; i <= 3; ++i) {
            const std::string id = "toolu_" + std::to_string(i);
            messages.push_back({{"role", "assistant"}, {"content", Json::array({{{"type", "tool_use"}, {"id", id}, {"name", "Bash"}, {"input", {{"command", "ls"}}}}})}});
            messages.push_back({{"role", "user"}, {"content", Json::array({{{"type", "tool_result"}, {"tool_use_id", id}, {"content", std::string(500, 'x')}}})}});
        }
        const QByteArray body = QByteArray::fromStdString(Json{{"model", "claude-sonnet-4-5"}, {"max_tokens", 10}, {"messages", messages}}.dump());
        auto send = [&] {
            QTcpSocket client;
            client.connectToHost(QHostAddress::LocalHost, dialog.port());
            if (!client.waitForConnected(5000))
                return false;
            client.write(post("/v1/messages", body));
            QByteArray raw;
            return QTest::qWaitFor([&] { raw += client.readAll(); const auto r = parseResponses(raw); return r.size() == 1 && r[0].complete; }, 5000);
        };
        QVERIFY(send());
        QCOMPARE(Json::parse(upstream.requests.back().body.toStdString())["messages"].size(), std::size_t(3));
        QTRY_VERIFY2(dialog.statusText().contains(QStringLiteral("1 request(s) changed")) || dialog.statusText().contains(QStringLiteral("1 request changed")),
                     qPrintable(dialog.statusText()));
        dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/record-dialog-compacting.png"));

        dialog.compactSwitch()->setChecked(false);
        QVERIFY(!dialog.isCompacting());
        QVERIFY(dialog.statusText().contains(QStringLiteral("is off")));
        QVERIFY(send());
        QCOMPARE(upstream.requests.back().body, body);
        dialog.stop();
    }

    void refusesAProviderThatIsNoUrl()
    {
        QTemporaryDir dir;
        RecordDialog dialog;
        dialog.pathEdit()->setText(dir.filePath(QStringLiteral("run.jsonl")));
        dialog.upstreamBox()->setEditText(QStringLiteral("ftp://example"));
        QVERIFY(!dialog.start());
        QVERIFY2(dialog.statusText().contains(QStringLiteral("http:// or https://")), qPrintable(dialog.statusText()));
        QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("run.jsonl"))));
    }

    // In the File menu, enabled with nothing loaded; a second call brings back the same dialog.
    void fromTheFileMenu()
    {
        MainWindow w;
        w.show();
        QAction *action = w.findChild<QAction *>(QStringLiteral("recordAction"));
        QVERIFY(action);
        QVERIFY(action->isEnabled());
        action->trigger();
        auto *dialog = w.findChild<RecordDialog *>();
        QVERIFY(dialog && dialog->isVisible());
        action->trigger();
        QCOMPARE(w.findChildren<RecordDialog *>().size(), 1);
        dialog->close();
    }
};

QTEST_MAIN(TestRecordDialog)
#include "tst_recorddialog.moc"
