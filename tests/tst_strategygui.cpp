// SPDX-License-Identifier: MIT
// The strategy GUI, offscreen with real widgets: the parameter form, the strategy panel's
// background preview, the side-by-side result models and their selection sync, the document's
// apply / undo / redo, export, and a grab of the preview for a look.
#include "core/analysis/analysis.h"
#include "core/generator/generator.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/tokens/estimator.h"
#include "core/model/transcript.h"
#include "core/strategies/registry.h"
#include "widgets/jobs/backgroundjob.h"
#include "widgets/models/fatecolors.h"
#include "widgets/models/resultmodel.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/previewview.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/style/theme.h"
#include "widgets/transcript/transcriptdocument.h"

#include "test_support.h"
#include "trim_fixture.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTreeView>
#include <QUndoStack>
#include <QtTest>

#include <set>

using namespace cl;
using namespace cl::gui;
using cl::strategy::Fate;
using cl::strategy::ParamSpec;
using cl::test::runTrim;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

// Runs a preview through the panel and waits for it.
std::shared_ptr<const strategy::Result> previewWith(StrategyPanel &panel, const QString &name, const nlohmann::json &values)
{
    if (!panel.setCurrentStrategy(name))
        return nullptr;
    if (!values.is_null() && !panel.paramForm()->setValues(values))
        return nullptr;
    QSignalSpy ready(&panel, &StrategyPanel::previewReady);
    panel.runPreview();
    if (!ready.wait(60000))
        return nullptr;
    return ready.first().first().value<std::shared_ptr<const strategy::Result>>();
}

} // namespace

class TestStrategyGui : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_input;
    std::shared_ptr<const Transcript> m_t;
    gen::Stats m_genStats;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        gen::Options o;
        o.messages = 60;
        o.maxReadLines = 40;
        std::string error;
        std::string bytes = gen::generate(o, &m_genStats, &error);
        QVERIFY2(!bytes.empty(), error.c_str());
        m_input = m_dir.filePath(QStringLiteral("session.jsonl"));
        QFile f(m_input);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(bytes.data(), static_cast<qint64>(bytes.size()));
        f.close();
        LoadResult r = loadBytes(std::move(bytes), m_input.toStdString());
        QVERIFY2(r.ok(), r.error.c_str());
        m_t = r.transcript;
        QCOMPARE(m_t->format, Format::ClaudeCode);
        QVERIFY(m_genStats.toolRounds >= 3); // trim-tools needs rounds to remove
        QVERIFY(strategy::find("trim-tools"));
    }

    void paramFormRoundTripsEveryType()
    {
        std::vector<ParamSpec> specs{
            {"count", ParamSpec::Type::Int, 0, 100, 5, {}, "how many"},
            {"free", ParamSpec::Type::Int, 0, 0, -7, {}, "unbounded"},
            {"share", ParamSpec::Type::Double, 0, 1, 0.5, {}, "a share"},
            {"force", ParamSpec::Type::Bool, 0, 0, false, {}, "skip the trigger"},
            {"prompt", ParamSpec::Type::String, 0, 0, "hello", {}, "text"},
            {"tools", ParamSpec::Type::StringList, 0, 0, nlohmann::json::array({"Read", "Bash"}), {}, "tool names"},
            {"style", ParamSpec::Type::Choice, 0, 0, "brief", {"full", "brief", "none"}, "summary style"},
        };
        ParamForm form;
        form.setSpecs(specs);
        const nlohmann::json defaults{{"count", 5}, {"free", -7}, {"share", 0.5}, {"force", false}, {"prompt", "hello"}, {"tools", {"Read", "Bash"}}, {"style", "brief"}};
        QCOMPARE(form.values(), defaults);
        QVERIFY(qobject_cast<QSpinBox *>(form.editor(QStringLiteral("count"))));
        QCOMPARE(qobject_cast<QSpinBox *>(form.editor(QStringLiteral("count")))->maximum(), 100);
        QVERIFY(qobject_cast<QDoubleSpinBox *>(form.editor(QStringLiteral("share"))));
        QVERIFY(qobject_cast<QCheckBox *>(form.editor(QStringLiteral("force"))));
        QVERIFY(qobject_cast<QLineEdit *>(form.editor(QStringLiteral("tools"))));
        QCOMPARE(qobject_cast<QComboBox *>(form.editor(QStringLiteral("style")))->count(), 3);
        QCOMPARE(form.editor(QStringLiteral("share"))->toolTip(), QStringLiteral("a share"));

        const nlohmann::json changed{{"count", 100}, {"free", 123456}, {"share", 0.25}, {"force", true}, {"prompt", "bye"}, {"tools", {"Grep"}}, {"style", "none"}};
        QSignalSpy spy(&form, &ParamForm::valuesChanged);
        QString error;
        QVERIFY2(form.setValues(changed, &error), qPrintable(error));
        QCOMPARE(spy.count(), 1); // one notification for the whole set
        QCOMPARE(form.values(), changed);
        // Command-line spellings are accepted too.
        QVERIFY(form.setValues({{"count", "7"}, {"force", "false"}, {"tools", "a, b,,c"}}));
        QCOMPARE(form.values()["count"], 7);
        QCOMPARE(form.values()["force"], false);
        QCOMPARE(form.values()["tools"], nlohmann::json({"a", "b", "c"}));
        // Invalid values are refused and named; the valid ones in the same call still apply.
        QVERIFY(!form.setValues({{"count", 101}, {"share", 0.75}}, &error));
        QVERIFY(error.contains(QStringLiteral("count")));
        QCOMPARE(form.values()["count"], 7);
        QCOMPARE(form.values()["share"], 0.75);
        QVERIFY(!form.setValues({{"nope", 1}}, &error));
        QVERIFY(error.contains(QStringLiteral("nope")));
        QVERIFY(!form.setValues({{"style", "other"}}));
        form.resetToDefaults();
        QCOMPARE(form.values(), defaults);

        // Every registered strategy: its defaults resolve, and the form takes back what it gives.
        for (const strategy::Strategy *s : strategy::all()) {
            form.setSpecs(s->params());
            const nlohmann::json v = form.values();
            strategy::Params p;
            std::string why;
            QVERIFY2(strategy::resolveParams(s->params(), v, p, why), (std::string(s->name()) + ": " + why).c_str());
            QVERIFY2(form.setValues(v, &error), qPrintable(error));
            QCOMPARE(form.values(), v);
        }
    }

    void panelPreviewsTrimTools()
    {
        StrategyPanel panel;
        panel.show();
        panel.setTranscript(m_t);
        const auto result = previewWith(panel, QStringLiteral("trim-tools"), {{"keepLastToolRounds", 1}});
        QVERIFY(result);
        QCOMPARE(panel.preview(), result);
        QCOMPARE(panel.previewTranscript(), m_t);

        // By hand: every round but the last goes, its assistant message and its result messages.
        const analysis::Analysis a = analysis::analyze(*m_t);
        QVERIFY(a.rounds.size() >= 2);
        std::set<std::size_t> expected;
        for (std::size_t k = 0; k + 1 < a.rounds.size(); ++k) {
            expected.insert(a.rounds[k].assistant);
            expected.insert(a.rounds[k].results.begin(), a.rounds[k].results.end());
        }
        std::set<std::size_t> removed;
        for (std::size_t i = 0; i < result->fates.size(); ++i)
            if (result->fates[i].fate == Fate::Removed)
                removed.insert(i);
        QCOMPARE(removed, expected);
        QVERIFY(result->changed);
        QCOMPARE(result->slots.size(), m_t->messages.size() - expected.size());
        QCOMPARE(result->stats.fateCounts[static_cast<std::size_t>(Fate::Removed)], expected.size());

        // Apply hands over the previewed result; a new transcript drops the preview.
        QSignalSpy applied(&panel, &StrategyPanel::applyRequested);
        panel.requestApply();
        QCOMPARE(applied.count(), 1);
        QCOMPARE(applied.first().first().value<std::shared_ptr<const strategy::Result>>(), result);
        QVERIFY(applied.first().at(1).toString().contains(QStringLiteral("Remove old tool rounds")));
        QSignalSpy cleared(&panel, &StrategyPanel::previewCleared);
        panel.setTranscript(std::make_shared<const Transcript>(result->materialize(*m_t)));
        QCOMPARE(cleared.count(), 1);
        QVERIFY(!panel.preview());
        panel.requestApply();
        QCOMPARE(applied.count(), 1);
    }

    void panelDropsCancelledPreview()
    {
        StrategyPanel panel;
        panel.setTranscript(m_t);
        QVERIFY(panel.setCurrentStrategy(QStringLiteral("trim-tools")));
        QSignalSpy ready(&panel, &StrategyPanel::previewReady);
        panel.runPreview();
        QVERIFY(panel.isBusy());
        panel.cancelPreview();
        QVERIFY(!panel.isBusy());
        backgroundPool()->waitForDone();
        QTest::qWait(50); // the watcher's finished arrives through the event loop
        QCOMPARE(ready.count(), 0);
        QVERIFY(!panel.preview());
        // The pinned field reads back what the lead feeds it.
        panel.setPinned({9, 3, 4, 5, 3});
        QCOMPARE(panel.pinned(), (std::vector<std::size_t>{3, 4, 5, 9}));
        panel.setExemptTools({QStringLiteral("Read"), QStringLiteral("Bash")});
        QCOMPARE(panel.exemptTools(), (QStringList{QStringLiteral("Read"), QStringLiteral("Bash")}));
    }

    void panelHonoursPinnedMessages()
    {
        const analysis::Analysis a = analysis::analyze(*m_t);
        QVERIFY(a.rounds.size() >= 2);
        const std::size_t pinnedIndex = a.rounds.front().assistant;
        StrategyPanel panel;
        panel.setTranscript(m_t);
        panel.setPinned({pinnedIndex});
        const auto result = previewWith(panel, QStringLiteral("trim-tools"), {{"keepLastToolRounds", 0}});
        QVERIFY(result);
        QCOMPARE(result->fates[pinnedIndex].fate, Fate::Kept);
        QVERIFY(result->fates[a.rounds.back().assistant].fate == Fate::Removed);
    }

    void resultModelsMatchTheResult()
    {
        const strategy::Result r = runTrim(*m_t, 1);
        auto shared = std::make_shared<const strategy::Result>(r);
        ResultModel left(ResultModel::Side::Original), right(ResultModel::Side::Result);
        QAbstractItemModelTester t1(&left, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&right, QAbstractItemModelTester::FailureReportingMode::QtTest);
        left.setResult(m_t, nullptr);
        QCOMPARE(left.rowCount(), static_cast<int>(m_t->messages.size()));
        QCOMPARE(right.rowCount(), 0);
        left.setResult(m_t, shared);
        right.setResult(m_t, shared);
        QCOMPARE(left.rowCount(), static_cast<int>(m_t->messages.size()));
        QCOMPARE(right.rowCount(), static_cast<int>(r.slots.size()));
        QCOMPARE(left.columnCount(), static_cast<int>(ResultModel::ColumnCount));
        QCOMPARE(right.columnCount(), left.columnCount());
        int removedRows = 0;
        for (int i = 0; i < left.rowCount(); ++i) {
            const auto &f = r.fates[static_cast<std::size_t>(i)];
            QCOMPARE(left.index(i, 0).data(FateRole).toInt(), static_cast<int>(f.fate));
            QCOMPARE(left.index(i, ResultModel::FateColumn).data().toString(), fateLabel(f.fate));
            QCOMPARE(left.partnerRow(i), f.slot);
            if (f.fate == Fate::Removed) {
                ++removedRows;
                QVERIFY(left.index(i, 0).data(Qt::FontRole).value<QFont>().strikeOut());
                QCOMPARE(left.index(i, 0).data(Qt::BackgroundRole).value<QColor>(), fateColor(Fate::Removed, false));
                QVERIFY(!left.index(i, 0).data(ReasonRole).toString().isEmpty());
            } else {
                QVERIFY(f.slot >= 0);
                QCOMPARE(right.partnerRow(f.slot), i); // both directions agree
            }
        }
        QCOMPARE(removedRows, static_cast<int>(m_t->messages.size() - r.slots.size()));
        for (int k = 0; k < right.rowCount(); ++k) {
            const auto &slot = r.slots[static_cast<std::size_t>(k)];
            QCOMPARE(right.index(k, 0).data(FateRole).toInt(), static_cast<int>(slot.fate));
            QCOMPARE(right.index(k, ResultModel::IndexColumn).data().toString(), QString::number(slot.origin + 1));
            QCOMPARE(right.index(k, ResultModel::TokensColumn).data().toLongLong(),
                     static_cast<qint64>(tokens::estimateMessage(r.message(*m_t, static_cast<std::size_t>(k)))));
        }
        // Dark rows get the dark table.
        left.setDarkPalette(true);
        for (int i = 0; i < left.rowCount(); ++i)
            if (r.fates[static_cast<std::size_t>(i)].fate == Fate::Removed) {
                QCOMPARE(left.index(i, 0).data(Qt::BackgroundRole).value<QColor>(), fateColor(Fate::Removed, true));
                break;
            }
        left.clear();
        right.clear();
        QCOMPARE(left.rowCount(), 0);
    }

    // Every strategy that exists right now, through the panel and both models.
    void everyStrategyPreviews()
    {
        StrategyPanel panel;
        panel.setTranscript(m_t);
        PreviewView view;
        for (const strategy::Strategy *s : strategy::all()) {
            const QString name = QString::fromUtf8(s->name().data(), static_cast<qsizetype>(s->name().size()));
            const auto result = previewWith(panel, name, nullptr);
            QVERIFY2(result, qPrintable(name));
            QCOMPARE(result->fates.size(), m_t->messages.size());
            QAbstractItemModelTester t1(view.originalModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
            QAbstractItemModelTester t2(view.resultModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
            view.setResult(m_t, result);
            QCOMPARE(view.resultModel()->rowCount(), static_cast<int>(result->slots.size()));
            QVERIFY(view.statsText().contains(QStringLiteral("→")));
            for (int k = 0; k < view.resultModel()->rowCount(); ++k)
                if (result->slots[static_cast<std::size_t>(k)].fate == Fate::Inserted)
                    QCOMPARE(view.resultModel()->index(k, 0).data(Qt::BackgroundRole).value<QColor>(), fateColor(Fate::Inserted, false));
        }
    }

    void selectionFollowsAcrossSides()
    {
        // trim-tools plus one inserted message at the front, to exercise both kinds of unmatched rows.
        strategy::Result r = runTrim(*m_t, 1);
        strategy::Slot note;
        Message m;
        m.role = Role::User;
        m.blocks.push_back(Block{});
        m.blocks.back().text = "inserted for the test";
        note.message = std::make_shared<const Message>(m);
        note.fate = Fate::Inserted;
        note.reason = "test insertion";
        r.slots.insert(r.slots.begin(), note);
        for (auto &f : r.fates)
            if (f.slot >= 0)
                ++f.slot;
        PreviewView view;
        view.resize(1200, 700);
        view.show();
        view.setResult(m_t, std::make_shared<const strategy::Result>(r));

        int kept = -1, removed = -1;
        for (std::size_t i = 0; i < r.fates.size(); ++i) {
            if (r.fates[i].fate == Fate::Removed && removed < 0)
                removed = static_cast<int>(i);
            if (r.fates[i].slot > 0 && i > 5 && kept < 0)
                kept = static_cast<int>(i);
        }
        QVERIFY(kept >= 0 && removed >= 0);
        view.selectOriginal(kept);
        QCOMPARE(view.resultView()->currentIndex().row(), r.fates[static_cast<std::size_t>(kept)].slot);
        QVERIFY(view.resultView()->selectionModel()->isRowSelected(r.fates[static_cast<std::size_t>(kept)].slot, {}));
        QVERIFY(view.syncMessage().isEmpty());

        view.selectOriginal(removed);
        QVERIFY(!view.resultView()->selectionModel()->hasSelection());
        QVERIFY(view.syncMessage().contains(QStringLiteral("removed")));
        QVERIFY(view.syncMessage().contains(QString::number(removed)));

        view.selectSlot(0); // the inserted one
        QVERIFY(!view.originalView()->selectionModel()->hasSelection());
        QVERIFY(view.syncMessage().contains(QStringLiteral("inserted")));

        const int slot = r.fates[static_cast<std::size_t>(kept)].slot;
        view.selectSlot(slot);
        QCOMPARE(view.originalView()->currentIndex().row(), kept);
        QVERIFY(view.syncMessage().isEmpty());

        // Scrolling one side brings the partner of its top row to the top of the other.
        view.resize(1200, 360);
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY(view.resultView()->verticalScrollBar()->maximum() > 0);
        view.originalView()->scrollTo(view.originalModel()->index(kept, 0), QAbstractItemView::PositionAtTop);
        QCOMPARE(view.originalView()->indexAt(QPoint(1, 1)).row(), kept);
        QTRY_COMPARE(view.resultView()->indexAt(QPoint(1, 1)).row(), slot);
        view.resultView()->scrollTo(view.resultModel()->index(0, 0), QAbstractItemView::PositionAtTop);
        QTRY_COMPARE(view.originalView()->indexAt(QPoint(1, 1)).row(), 0); // the inserted top row follows slot 1 = #0
    }

    void grabPreview_data()
    {
        QTest::addColumn<bool>("dark");
        QTest::addColumn<bool>("summary");
        QTest::newRow("light") << false << false;
        QTest::newRow("dark") << true << false;
        QTest::newRow("summary-light") << false << true;
        QTest::newRow("summary-dark") << true << true;
    }

    void grabPreview()
    {
        QFETCH(bool, dark);
        const QString sample = QStringLiteral(CL_SAMPLES_DIR "/claude-code/viewer-sample-edits.jsonl");
        CL_REQUIRE(QFile::exists(sample), "no real sample transcripts here");
        LoadResult loaded = loadFile(sample.toStdString());
        QVERIFY(loaded.ok());
        std::shared_ptr<const Transcript> t = loaded.transcript;
        QWidget window;
        window.setPalette(dark ? theme::darkPalette() : theme::lightPalette());
        auto *layout = new QHBoxLayout(&window);
        auto *panel = new StrategyPanel(&window);
        auto *view = new PreviewView(&window);
        layout->addWidget(panel);
        layout->addWidget(view, 1);
        connect(panel, &StrategyPanel::previewReady, view,
                [panel, view](std::shared_ptr<const strategy::Result> r) { view->setResult(panel->previewTranscript(), r); });
        window.resize(1600, 900);
        window.show();
        panel->setTranscript(t);
        view->setTranscript(t);
        // trim-tools, and the first strategy that inserts a summary (forced past its trigger): it shows the most.
        QFETCH(bool, summary);
        QString name = QStringLiteral("trim-tools");
        nlohmann::json values{{"keepLastToolRounds", 1}};
        if (summary) {
            name.clear();
            for (const strategy::Strategy *s : strategy::all()) {
                nlohmann::json forced = nlohmann::json::object();
                for (const ParamSpec &p : s->params())
                    if (p.name == "force")
                        forced["force"] = true;
                strategy::Input in(*t);
                const strategy::Result r = strategy::run(*s, in, forced);
                if (std::any_of(r.slots.begin(), r.slots.end(), [](const strategy::Slot &sl) { return sl.fate == Fate::Inserted; })) {
                    name = QString::fromUtf8(s->name().data(), static_cast<qsizetype>(s->name().size()));
                    values = forced;
                    break;
                }
            }
            QVERIFY2(!name.isEmpty(), "some strategy inserts a summary");
        }
        const auto result = previewWith(*panel, name, values);
        QVERIFY(result);
        QCOMPARE(view->resultModel()->rowCount(), static_cast<int>(result->slots.size()));
        for (std::size_t i = 0; i < result->fates.size(); ++i)
            if (result->fates[i].fate != Fate::Kept) {
                view->selectOriginal(static_cast<int>(i));
                break;
            }
        QTest::qWait(50);
        const QString file = QStringLiteral(CL_BINARY_DIR "/strategygui-preview-%1.png").arg(QString::fromLatin1(QTest::currentDataTag()));
        QVERIFY(window.grab().save(file));
    }
};

QTEST_MAIN(TestStrategyGui)
#include "tst_strategygui.moc"
