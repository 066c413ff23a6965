// SPDX-License-Identifier: MIT
// API keys in the system keyring (net/keyring.h, widgets/strategy/summarizersettings.h). Test
// "keyring_service" runs against a real Secret Service of its own (tests/with-keyring.sh): keys are
// stored, read, used for a model call and removed, through the functions and the Summaries dialog,
// and never land in the settings. Test "keyring" has no keyring service: every call says so, the
// dialog says so, and the key comes from the environment.
#include "net/keyring.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/strategy/summarizersettings.h"

#include "fake_server.h"
#include "strategy_fixture.h"
#include "test_support.h"

#include <QCheckBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QtTest>

using namespace cl;
using namespace cl::gui;
using cl::test::FakeModelServer;
using cl::test::script;
using cl::test::textTurn;
using cl::test::tierfix::Builder;
using cl::test::tierfix::prose;
using Json = nlohmann::json;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();
const char *const kName = "CL_TEST_RING_KEY";

bool withService()
{
    return qEnvironmentVariable("CL_KEYRING_MODE") == QStringLiteral("service");
}

GuiSummarizer ringSettings()
{
    GuiSummarizer g;
    g.useModel = true;
    g.settings.config.provider = llm::Provider::Anthropic;
    g.settings.config.model = "claude-3-5-haiku-latest";
    g.apiKeyVariable = QString::fromLatin1(kName);
    g.keyInKeyring = true;
    return g;
}

QString settingsFileText()
{
    QSettings q;
    q.sync();
    QFile f(q.fileName());
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

class TestKeyring : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        CL_REQUIRE(net::keyring::compiledIn(), "QtKeychain (Debian qtkeychain-qt6-dev) at build time");
        qunsetenv(kName);
    }

    void noServiceSaysSo()
    {
        if (withService())
            QSKIP("test \"keyring\" covers this (no keyring service)");
        const net::keyring::Outcome write = net::keyring::write(kName, "sk-ring-SECRET-0");
        QVERIFY(!write.ok && !write.notFound);
        QVERIFY2(!write.error.empty() && write.error.find("SECRET") == std::string::npos, write.error.c_str());
        const net::keyring::Outcome read = net::keyring::read(kName);
        QVERIFY(!read.ok && !read.error.empty());
        // The key comes from the environment, and the note says why the keyring did not give it.
        qputenv(kName, "env-key-1");
        QString note;
        QCOMPARE(withKey(ringSettings(), &note).config.apiKey, std::string("env-key-1"));
        QVERIFY2(note.startsWith(QStringLiteral("keyring: ")) && note.contains(QString::fromLatin1(kName)), qPrintable(note));
        qunsetenv(kName);
        // The dialog: Store fails visibly and forgets what was typed.
        SummarizerDialog dialog(ringSettings());
        auto *entry = dialog.findChild<QLineEdit *>(QStringLiteral("keyEntry"));
        QVERIFY(entry && entry->echoMode() == QLineEdit::Password);
        entry->setText(QStringLiteral("sk-ring-SECRET-0"));
        dialog.findChild<QPushButton *>(QStringLiteral("storeKey"))->click();
        const QString shown = dialog.findChild<QLabel *>(QStringLiteral("keyringNote"))->text();
        QVERIFY2(shown.contains(QStringLiteral("Not stored")) && shown.contains(QStringLiteral("environment")), qPrintable(shown));
        QVERIFY(entry->text().isEmpty());
        qInfo("%s", write.error.c_str());
        dialog.show();
        QVERIFY(dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/summarizer-dialog-no-keyring.png")));
    }

    void storeReadUseRemove()
    {
        if (!withService())
            QSKIP("test \"keyring_service\" covers this (tests/with-keyring.sh)");
        QVERIFY(net::keyring::read(kName).notFound);
        const net::keyring::Outcome write = net::keyring::write(kName, "sk-ring-SECRET-1");
        QVERIFY2(write.ok, write.error.c_str());
        const net::keyring::Outcome read = net::keyring::read(kName);
        QVERIFY2(read.ok, read.error.c_str());
        QCOMPARE(read.value, std::string("sk-ring-SECRET-1"));

        // The dialog stores a new key: the keyring has it, the dialog does not keep it.
        SummarizerDialog dialog(ringSettings());
        auto *entry = dialog.findChild<QLineEdit *>(QStringLiteral("keyEntry"));
        entry->setText(QStringLiteral("sk-ring-SECRET-2"));
        dialog.findChild<QPushButton *>(QStringLiteral("storeKey"))->click();
        const QString stored = dialog.findChild<QLabel *>(QStringLiteral("keyringNote"))->text();
        QVERIFY2(stored.contains(QStringLiteral("Stored in the system keyring")), qPrintable(stored));
        QVERIFY(entry->text().isEmpty());
        QCOMPARE(net::keyring::read(kName).value, std::string("sk-ring-SECRET-2"));
        const GuiSummarizer chosen = dialog.value();
        QVERIFY(chosen.keyInKeyring);
        saveSummarizer(chosen);
        QVERIFY(loadSummarizer().keyInKeyring);
        QVERIFY(!settingsFileText().contains(QStringLiteral("SECRET")));

        // A preview's model call sends the key from the keyring (no environment variable is set).
        FakeModelServer server;
        QVERIFY(server.start(script({textTurn("Summary: the parser was fixed in /src/a.py.")})));
        GuiSummarizer g = chosen;
        g.settings.config.baseUrl = server.baseUrl(false);
        g.settings.config.retries = 0;
        g.settings.cacheDir.clear();
        QString note;
        QCOMPARE(withKey(g, &note).config.apiKey, std::string("sk-ring-SECRET-2"));
        QVERIFY2(note.contains(QStringLiteral("system keyring")), qPrintable(note));
        Builder b;
        b.text(Role::User, "Fix the parser in the project.");
        b.tool("Read", {{"file_path", "/src/a.py"}}, prose(8000, 1));
        b.text(Role::Assistant, "Fixed.");
        b.text(Role::User, "Thanks.");
        StrategyPanel panel;
        panel.setTranscript(std::make_shared<const Transcript>(b.done()));
        panel.setModelSummarizer(g);
        QVERIFY(panel.setCurrentStrategy(QStringLiteral("claude-code-compact")));
        QVERIFY(panel.paramForm()->setValues({{"force", true}, {"maxFiles", 0}}));
        QSignalSpy ready(&panel, &StrategyPanel::previewReady);
        panel.runPreview();
        QVERIFY(ready.wait(30000));
        QCOMPARE(server.requests().size(), std::size_t(1));
        const Json headers = server.requests().front()["headers"];
        bool sent = false;
        for (auto it = headers.begin(); it != headers.end(); ++it)
            sent = sent || (QString::fromStdString(it.key()).compare(QStringLiteral("x-api-key"), Qt::CaseInsensitive) == 0 && it.value() == "sk-ring-SECRET-2");
        QVERIFY(sent);

        // Remove: the keyring no longer has it; the environment is the fallback, and the note says so.
        SummarizerDialog again(chosen);
        again.findChild<QPushButton *>(QStringLiteral("removeKey"))->click();
        QVERIFY(again.findChild<QLabel *>(QStringLiteral("keyringNote"))->text().contains(QStringLiteral("Removed")));
        QVERIFY(net::keyring::read(kName).notFound);
        QVERIFY(!again.value().keyInKeyring);
        qputenv(kName, "env-key-2");
        QCOMPARE(withKey(ringSettings(), &note).config.apiKey, std::string("env-key-2"));
        QVERIFY2(note.contains(QStringLiteral("no key stored")), qPrintable(note));
        qunsetenv(kName);
        const net::keyring::Outcome gone = net::keyring::remove(kName); // nothing left to remove
        QVERIFY(gone.ok || gone.notFound);
    }
};

QTEST_MAIN(TestKeyring)
#include "tst_keyring.moc"
