// SPDX-License-Identifier: MIT
// Model summaries in the GUI (widgets/strategy/strategypanel.h, summarizersettings.h), headless,
// against the project's fake model server on 127.0.0.1: a preview streams the model's answer into
// the panel as it arrives and reports its tokens and the facts it dropped; cancel aborts the call;
// a rejected summary leaves the preview unchanged and says why; the settings never hold the key.
#include "core/io/writer.h"
#include "core/llm/prompts.h"
#include "widgets/models/comparemodel.h"
#include "widgets/strategy/compareview.h"
#include "widgets/strategy/operationsdialog.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/strategy/summarizersettings.h"

#include "fake_server.h"
#include "strategy_fixture.h"
#include "test_support.h"

#include <QCheckBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSettings>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QSignalSpy>
#include <QtTest>

using namespace cl;
using namespace cl::gui;
using cl::test::FakeModelServer;
using cl::test::errorTurn;
using cl::test::script;
using cl::test::textTurn;
using cl::test::tierfix::Builder;
using cl::test::tierfix::prose;
using Json = nlohmann::json;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

const char *const kAnswer = "<analysis>In order.</analysis>\n<summary>\n"
                            "1. Primary Request and Intent: Fix the parser in the project.\n"
                            "2. Key Technical Concepts: Python\n"
                            "3. Files and Code Sections: /src/a.py\n"
                            "4. Errors and fixes: none\n"
                            "5. Problem Solving: done\n"
                            "6. All user messages: Fix the parser in the project.\n"
                            "7. Pending Tasks: none\n"
                            "8. Current Work: the parser\n"
                            "9. Optional Next Step: none\n</summary>";

std::shared_ptr<const Transcript> session()
{
    Builder b;
    b.text(Role::System, "You are a coding agent.");
    b.text(Role::User, "Fix the parser in the project.");
    b.tool("Read", {{"file_path", "/src/a.py"}}, prose(8000, 1));
    b.tool("Bash", {{"command", "pytest -q"}}, "FAILED tests/test_parser.py::test_empty", true);
    b.text(Role::Assistant, "Fixed.");
    b.text(Role::User, "Now update /src/b.py docs.");
    b.tool("Read", {{"file_path", "/src/b.py"}}, prose(8000, 2));
    return std::make_shared<const Transcript>(b.done());
}

GuiSummarizer modelAt(const FakeModelServer &server)
{
    GuiSummarizer g;
    g.useModel = true;
    g.settings.config.provider = llm::Provider::Anthropic;
    g.settings.config.baseUrl = server.baseUrl(false);
    g.settings.config.model = "claude-3-5-haiku-latest";
    g.settings.config.retries = 0;
    g.settings.cacheDir.clear();
    g.apiKeyVariable = QStringLiteral("CL_TEST_GUI_KEY");
    return g;
}

// A shown panel on the session, its summaries by the model at `server`, claude-code-compact chosen.
void prepare(StrategyPanel &panel, const FakeModelServer &server)
{
    panel.resize(420, 800);
    panel.show();
    panel.setTranscript(session());
    panel.setModelSummarizer(modelAt(server));
    QVERIFY(panel.setCurrentStrategy(QStringLiteral("claude-code-compact")));
    QVERIFY(panel.paramForm()->setValues({{"force", true}, {"maxFiles", 0}}));
}

} // namespace

class TestSummaryGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        CL_REQUIRE(!QStandardPaths::findExecutable(QStringLiteral("python3")).isEmpty(), "python3 for the fake model server");
        qputenv("CL_TEST_GUI_KEY", "sk-gui-SECRET-99");
    }

    void previewStreamsTheModelsSummary()
    {
        FakeModelServer server;
        Json chunked = Json::object();
        chunked["chunks"] = 12;
        QVERIFY(server.start(script({textTurn(kAnswer, chunked)})));
        StrategyPanel panel;
        prepare(panel, server);
        QVERIFY(panel.findChild<QLabel *>(QStringLiteral("summaryMode"))->text().contains(QStringLiteral("claude-3-5-haiku-latest")));
        QSignalSpy ready(&panel, &StrategyPanel::previewReady);
        panel.runPreview();
        QVERIFY(panel.summaryStream()->isVisible());
        QVERIFY(ready.wait(30000));
        // The answer arrived in pieces and stands whole in the stream view.
        QVERIFY2(panel.streamedPieces() >= 12, QByteArray::number(panel.streamedPieces()).constData());
        QCOMPARE(panel.summaryStream()->toPlainText(), QString::fromUtf8(kAnswer));
        const auto result = panel.preview();
        QVERIFY2(result && result->changed, result ? result->note.c_str() : "no result");
        bool summarized = false;
        for (const auto &slot : result->slots)
            if (slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactSummary)
                summarized = slot.message->blocks.front().text.find("1. Primary Request and Intent: Fix the parser") != std::string::npos;
        QVERIFY(summarized);
        // The report: the model, its tokens, and the dropped facts by name.
        const QString report = panel.summaryReport()->toPlainText();
        QVERIFY(panel.summaryReport()->isVisible());
        QVERIFY2(report.contains(QStringLiteral("claude-3-5-haiku-latest")) && report.contains(QStringLiteral("/src/b.py"))
                     && report.contains(QStringLiteral("Now update /src/b.py docs.")),
                 qPrintable(report));
        QVERIFY(!report.contains(QStringLiteral("SECRET")));
        // "Keep dropped facts": the next preview's summary lists them.
        auto *keep = panel.findChild<QCheckBox *>(QStringLiteral("keepDroppedFacts"));
        QVERIFY(keep && keep->isVisible() && !keep->isChecked());
        keep->click();
        QVERIFY(panel.modelSummarizer().settings.keepDroppedFacts);
        QVERIFY(loadSummarizer().settings.keepDroppedFacts); // remembered
        panel.runPreview();
        QVERIFY(ready.wait(30000));
        bool listed = false;
        for (const auto &slot : panel.preview()->slots)
            if (slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactSummary)
                listed = slot.message->blocks.front().text.find("does not mention") != std::string::npos
                         && slot.message->blocks.front().text.find("Now update /src/b.py docs.") != std::string::npos;
        QVERIFY(listed);
        QSettings().remove(QStringLiteral("summarizer"));
        QCOMPARE(QString::fromStdString(server.requests().front()["headers"].value("x-api-key", std::string())),
                 QStringLiteral("sk-gui-SECRET-99"));
    }

    void cancelAbortsTheCall()
    {
        FakeModelServer server;
        Json slow = Json::object();
        slow["delay"] = 6;
        QVERIFY(server.start(script({textTurn(kAnswer, slow)})));
        StrategyPanel panel;
        prepare(panel, server);
        QSignalSpy ready(&panel, &StrategyPanel::previewReady);
        panel.runPreview();
        QVERIFY(panel.isBusy());
        QVERIFY(QTest::qWaitFor([&] { return !server.requests().empty(); }, 10000)); // the call is under way
        QElapsedTimer timer;
        timer.start();
        panel.cancelPreview();
        QVERIFY(!panel.isBusy());
        QVERIFY(panel.summaryStream()->toPlainText().contains(QStringLiteral("[cancelled]")));
        QVERIFY(panel.findChild<QLabel *>(QStringLiteral("status"))->text().contains(QStringLiteral("cancelled")));
        QTest::qWait(1500); // the worker has returned long before the server would answer
        QCOMPARE(ready.count(), 0);
        QVERIFY(!panel.preview());
        QVERIFY(timer.elapsed() < 5000);
    }

    void rejectedSummaryLeavesTheTranscript()
    {
        FakeModelServer server;
        QVERIFY(server.start(script({errorTurn(500, "exploded")})));
        StrategyPanel panel;
        prepare(panel, server);
        QSignalSpy ready(&panel, &StrategyPanel::previewReady);
        panel.runPreview();
        QVERIFY(ready.wait(30000));
        QVERIFY(!panel.preview()->changed);
        const QString status = panel.findChild<QLabel *>(QStringLiteral("status"))->text();
        QVERIFY2(status.contains(QStringLiteral("not applied")) && status.contains(QStringLiteral("exploded")), qPrintable(status));
        QVERIFY(panel.summaryReport()->toPlainText().contains(QStringLiteral("rejected")));
    }

    // The compare view: each ticked strategy with the rules and, under it, with the model; the model
    // row's facts and cost; a strategy that writes no summary makes no call.
    void compareShowsRulesAndModelSideBySide()
    {
        FakeModelServer server;
        Json usage = Json::object();
        usage["usage"] = Json{{"input", 10000}, {"output", 500}};
        QVERIFY(server.start(script({textTurn(kAnswer, usage)})));
        CompareView view;
        view.resize(1200, 600);
        view.show();
        view.setInput(session());
        view.setParamOverrides(Json{{"claude-code-compact", Json{{"force", true}, {"maxFiles", 0}}}});
        QVERIFY(!view.withModel()->isEnabled()); // no model configured
        view.setModelSummarizer(modelAt(server));
        QVERIFY(view.withModel()->isEnabled());
        view.withModel()->setChecked(true);
        QSignalSpy finished(&view, &CompareView::finished);
        view.run({QStringLiteral("claude-code-compact"), QStringLiteral("openhands-observation-masking")});
        QVERIFY(finished.wait(30000));

        CompareModel *model = view.model();
        const int rules = model->rowOf(QStringLiteral("claude-code-compact"));
        const int withModel = model->rowOf(QStringLiteral("claude-code-compact+model"));
        QVERIFY(rules >= 0 && withModel == rules + 1 && model->isModelRow(withModel));
        QVERIFY(!(model->flags(model->index(withModel, CompareModel::StrategyColumn)) & Qt::ItemIsUserCheckable));
        QVERIFY(!model->checkedNames().contains(QStringLiteral("claude-code-compact+model")));
        const auto *ruleRow = model->rowFor(QStringLiteral("claude-code-compact"));
        const auto *modelRow = model->rowFor(QStringLiteral("claude-code-compact+model"));
        QVERIFY(ruleRow && modelRow && ruleRow->result.changed && modelRow->result.changed);
        // The model's summary is in the model row only.
        auto summaryOf = [](const strategy::Result &r) {
            for (const auto &slot : r.slots)
                if (slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactSummary)
                    return slot.message->blocks.front().text;
            return std::string();
        };
        QVERIFY(summaryOf(modelRow->result).find("1. Primary Request and Intent: Fix the parser") != std::string::npos);
        QVERIFY(summaryOf(ruleRow->result).find("1. Primary Request and Intent: Fix the parser") == std::string::npos);
        // Facts: the model's summary names /src/a.py and the first request but not the second one.
        QVERIFY(modelRow->result.stats.factsTotal == ruleRow->result.stats.factsTotal);
        QVERIFY(modelRow->result.stats.factsKept < modelRow->result.stats.factsTotal);
        // Cost: one call of 10 000 input and 500 output tokens at $0.8 / $4 per million.
        QCOMPARE(modelRow->result.extra["modelCalls"].get<int>(), 1);
        QVERIFY(std::abs(modelRow->result.extra["modelCost"].get<double>() - 0.010) < 1e-9);
        const QString cost = model->index(withModel, CompareModel::CostColumn).data().toString();
        QVERIFY2(cost.contains(QStringLiteral("0.0100")) && cost.contains(QStringLiteral("1 call")), qPrintable(cost));
        QVERIFY(model->index(rules, CompareModel::CostColumn).data().toString().isEmpty());
        // Observation masking writes no summary: same result, no call.
        const auto *masking = model->rowFor(QStringLiteral("openhands-observation-masking"));
        const auto *maskingModel = model->rowFor(QStringLiteral("openhands-observation-masking+model"));
        QVERIFY(masking && maskingModel);
        QCOMPARE(maskingModel->result.stats.tokensAfter, masking->result.stats.tokensAfter);
        QCOMPARE(model->index(model->rowOf(QStringLiteral("openhands-observation-masking+model")), CompareModel::CostColumn)
                     .data()
                     .toString(),
                 QStringLiteral("no call"));
        QCOMPARE(server.requests().size(), std::size_t(1));
        const QString status = view.findChild<QLabel *>(QStringLiteral("compareStatus"))->text();
        QVERIFY2(status.contains(QStringLiteral("model: 1 call")), qPrintable(status));
        QVERIFY(view.grab().save(QStringLiteral(CL_BINARY_DIR "/compare-with-model.png")));
        // Activating the model row previews its strategy (the panel runs it with the same model).
        QSignalSpy preview(&view, &CompareView::previewRequested);
        const QModelIndex shown = view.proxy()->mapFromSource(model->index(withModel, 0));
        Q_EMIT view.table()->activated(shown);
        QCOMPARE(preview.size(), 1);
        QCOMPARE(preview.front().front().toString(), QStringLiteral("claude-code-compact"));
        // A run without the model has no model rows.
        view.withModel()->setChecked(false);
        view.run({QStringLiteral("claude-code-compact")});
        QVERIFY(finished.wait(30000));
        QCOMPARE(model->rowOf(QStringLiteral("claude-code-compact+model")), -1);
        QCOMPARE(server.requests().size(), std::size_t(1));
        view.setModelSummarizer(GuiSummarizer{});
        QVERIFY(!view.withModel()->isEnabled() && !view.withModel()->isChecked());
    }

    // Seed 004's "Compress now" with the model: in the background, cancellable; the applied result
    // holds the model's summary and summaries.json records the model and its cost.
    void compressNowWithTheModel()
    {
        FakeModelServer server;
        Json slow = Json::object();
        slow["delay"] = 6;
        Json usage = Json::object();
        usage["usage"] = Json{{"input", 10000}, {"output", 500}};
        const std::string answer = "Summary: the user asked to fix the parser in /src/a.py; pytest failed, then it was fixed.";
        QVERIFY(server.start(script({textTurn(answer, slow), textTurn(answer, usage)})));
        QTemporaryDir dir;
        const ops::Store store(dir.path().toStdString());
        ops::Config config;
        config.keepRecent = 1;
        config.maxTurns = 2;
        std::string error;
        QVERIFY2(store.saveConfig(config, &error), error.c_str());
        Builder b;
        for (int k = 0; k < 6; ++k) {
            b.text(Role::User, "Request " + std::to_string(k) + ": fix the parser in /src/a.py");
            b.tool("Read", {{"file_path", "/src/a.py"}}, prose(3000, std::uint32_t(k + 1)));
            b.text(Role::Assistant, "Done with request " + std::to_string(k) + ".");
        }
        OperationsDialog dialog;
        dialog.setTranscript(std::make_shared<const Transcript>(b.done()), dir.filePath(QStringLiteral("session.jsonl")));
        QVERIFY(!dialog.withModel()->isEnabled()); // no model configured
        GuiSummarizer g = modelAt(server);
        g.settings.config.provider = llm::Provider::OpenAIChat;
        g.settings.config.baseUrl = server.baseUrl(true);
        g.settings.config.model = "gpt-4o-mini";
        dialog.setModelSummarizer(g);
        QVERIFY(dialog.withModel()->isEnabled());
        dialog.withModel()->setChecked(true);
        QSignalSpy compressed(&dialog, &OperationsDialog::compressed);
        QSignalSpy started(&dialog, &OperationsDialog::compactionStarted);
        // The first call is slow: cancel it; nothing is applied or recorded.
        dialog.compressNow();
        QVERIFY(dialog.isCompressing());
        auto *cancel = dialog.findChild<QPushButton *>(QStringLiteral("cancelCompress"));
        QVERIFY(cancel && !cancel->isHidden());
        QVERIFY(QTest::qWaitFor([&] { return !server.requests().empty(); }, 10000));
        cancel->click();
        QVERIFY(!dialog.isCompressing() && cancel->isHidden());
        QTest::qWait(1000);
        QCOMPARE(compressed.size(), 0);
        QVERIFY(dialog.lastCompressText().contains(QStringLiteral("Cancelled")));
        std::vector<ops::SummaryRecord> list;
        QVERIFY(store.loadSummaries(list, &error));
        QVERIFY(list.empty());
        // The second call answers: the result carries the model's summary, recorded with its cost.
        dialog.compressNow();
        QVERIFY(compressed.wait(30000));
        QVERIFY(started.size() >= 1); // the worker's events reach the dialog's thread
        const auto result = compressed.front().front().value<std::shared_ptr<const strategy::Result>>();
        QVERIFY(result && result->changed);
        bool summarized = false;
        for (const auto &slot : result->slots)
            if (slot.origin < 0 && slot.message && slot.message->kind == MessageKind::CompactSummary)
                summarized = slot.message->blocks.front().text.find("pytest failed, then it was fixed") != std::string::npos;
        QVERIFY(summarized);
        QVERIFY(store.loadSummaries(list, &error));
        QCOMPARE(list.size(), std::size_t(1));
        QCOMPARE(list[0].summarizer, std::string("model:openai/gpt-4o-mini"));
        QCOMPARE(list[0].model["inputTokens"], Json(10000));
        QVERIFY(list[0].model["cost"].is_number());
        QCOMPARE(server.requests().size(), std::size_t(2));
        const QString detail = dialog.findChild<QTextBrowser *>(QStringLiteral("summaryDetail"))->toPlainText();
        QVERIFY2(detail.contains(QStringLiteral("Written by model:openai/gpt-4o-mini: 10,000 + 500 tokens")), qPrintable(detail));
        dialog.resize(1100, 700);
        dialog.show();
        QVERIFY(dialog.grab().save(QStringLiteral(CL_BINARY_DIR "/operations-with-model.png")));
    }

    void settingsNeverHoldTheKey()
    {
        GuiSummarizer g;
        g.useModel = true;
        g.settings.config.provider = llm::Provider::Gemini;
        g.settings.config.model = "gemini-2.5-flash";
        g.settings.config.maxOutputTokens = 2048;
        g.settings.verify = true;
        g.settings.keepDroppedFacts = true;
        g.settings.preset = "gemini";
        g.settings.systemTemplate = "MY OWN INSTRUCTION: keep every file path.";
        g.apiKeyVariable = QStringLiteral("CL_TEST_GUI_KEY");
        saveSummarizer(g);
        const GuiSummarizer back = loadSummarizer();
        QVERIFY(back.useModel);
        QCOMPARE(back.settings.config.provider, llm::Provider::Gemini);
        QCOMPARE(back.settings.config.model, std::string("gemini-2.5-flash"));
        QCOMPARE(back.settings.config.maxOutputTokens, 2048);
        QVERIFY(back.settings.verify && back.settings.keepDroppedFacts);
        QCOMPARE(back.settings.preset, std::string("gemini"));
        QCOMPARE(back.settings.systemTemplate, g.settings.systemTemplate);
        QString note;
        QCOMPARE(withKey(back, &note).config.apiKey, std::string("sk-gui-SECRET-99"));
        QVERIFY(note.contains(QStringLiteral("CL_TEST_GUI_KEY")));
        QSettings q;
        q.sync();
        QFile file(q.fileName());
        QVERIFY(file.open(QIODevice::ReadOnly));
        QVERIFY(!file.readAll().contains("SECRET"));
        // The dialog shows and returns the same settings.
        SummarizerDialog dialog(back);
        const GuiSummarizer shown = dialog.value();
        QCOMPARE(shown.settings.config.model, back.settings.config.model);
        QCOMPARE(shown.settings.preset, back.settings.preset);
        QCOMPARE(shown.apiKeyVariable, back.apiKeyVariable);
        QCOMPARE(shown.settings.systemTemplate, g.settings.systemTemplate);
        // "Start from the structure's instruction" puts the preset's own text in, to edit.
        dialog.findChild<QPushButton *>(QStringLiteral("templateFromPreset"))->click();
        QCOMPARE(dialog.value().settings.systemTemplate, llm::preset("gemini").system);
        QCOMPARE(describe(back), QStringLiteral("Model: gemini gemini-2.5-flash"));
        QSettings().remove(QStringLiteral("summarizer"));
        QVERIFY(!loadSummarizer().useModel);
    }
};

QTEST_MAIN(TestSummaryGui)
#include "tst_summarygui.moc"
