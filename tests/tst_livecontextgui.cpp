// SPDX-License-Identifier: MIT
// The live context in the main window: history before the last compaction greyed and italic,
// hidden on request, left out of the status bar's figures; View › Whole History reloads with every
// message live; View › Token Count recounts every figure (codex/turns.jsonl). On the Codex fixture with a compaction (tests/data/codex/live-compacted.jsonl).
#include "core/tokens/contextfigure.h"
#include "core/tokens/estimator.h"
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/statuspanel.h"
#include "widgets/models/roles.h"
#include "widgets/models/tokencount.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/transcript/transcriptpanel.h"
#include "widgets/transcript/usagechart.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/analysis/analysispanel.h"
#include "widgets/analysis/compositionpanel.h"

#include "test_support.h"

#include <QAction>
#include <QCheckBox>
#include <QFont>
#include <QSettings>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();
const QString kFile = QStringLiteral(CL_TEST_DATA_DIR "/codex/live-compacted.jsonl");
const QString kMeasured = QStringLiteral(CL_TEST_DATA_DIR "/codex/turns.jsonl"); // usage recorded: calibrated
} // namespace

class TestLiveContextGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { cleanup(); }
    void cleanup()
    {
        QSettings().remove(QStringLiteral("view/wholeHistory"));
        tokencount::choose(tokens::Estimator::Calibrated);
    }

    void historyIsGreyedAndHideable()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1200, 800);
        w.show();
        QVERIFY(w.openFileNow(kFile));
        const Transcript &t = *w.transcript();
        QVERIFY(liveStart(t) > 0);
        TranscriptModel *model = w.transcriptPanel()->model();
        int history = 0;
        for (int row = 0; row < model->rowCount(); ++row) {
            const QModelIndex idx = model->index(row, TranscriptModel::PreviewColumn);
            const bool isHistory = idx.data(IsHistoryRole).toBool();
            QCOMPARE(isHistory, t.messages[std::size_t(row)].history);
            if (!isHistory)
                continue;
            ++history;
            QVERIFY(idx.data(Qt::FontRole).value<QFont>().italic());
            QVERIFY(idx.data(IsSecondaryRole).toBool()); // drawn greyed
            QVERIFY(idx.data(Qt::ToolTipRole).toString().startsWith(QStringLiteral("History:")));
        }
        QCOMPARE(std::size_t(history), liveStart(t));

        // The status bar and the gauge show one figure for the live context: the conversation after the
        // compaction + the fixed part, in the agent's count (tokens/contextfigure.h).
        const QString status = w.statusPanel()->summaryText();
        const tokens::ContextFigure figure = tokens::contextFigure(t);
        QVERIFY(figure.total > figure.fixed && figure.fixed > 0);
        QVERIFY2(status.contains(QStringLiteral("live context %1 (conversation %2 + fixed part %3")
                                     .arg(QLocale().toString(qlonglong(figure.total)), QLocale().toString(qlonglong(figure.conversation)),
                                          QLocale().toString(qlonglong(figure.fixed)))),
                 qPrintable(status));
        QVERIFY2(status.contains(QStringLiteral("messages of history")), qPrintable(status));
        QCOMPARE(w.findChild<ContextGauge *>()->estimated(), qint64(figure.total));

        // "Hide history" is offered and hides exactly those rows.
        QCheckBox *hideHistory = nullptr;
        for (QCheckBox *box : w.transcriptPanel()->findChildren<QCheckBox *>())
            if (box->text() == QStringLiteral("Hide history"))
                hideHistory = box;
        QVERIFY(hideHistory);
        QVERIFY(hideHistory->isVisible());
        TranscriptFilterModel *filter = w.transcriptPanel()->filterModel();
        // Every row, events unfolded, so that the history counted above is what the box hides.
        w.transcriptPanel()->findChild<QCheckBox *>(QStringLiteral("foldEvents"))->setChecked(false);
        const int all = filter->rowCount();
        hideHistory->setChecked(true);
        QCOMPARE(filter->rowCount(), all - history);
        hideHistory->setChecked(false);
        QCOMPARE(filter->rowCount(), all);
    }

    void wholeHistorySwitchReloads()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(kFile));
        const qint64 liveTokens = tokens::totalEstimate(*w.transcript());
        auto *action = w.findChild<QAction *>(QStringLiteral("wholeHistoryAction"));
        QVERIFY(action && action->isCheckable() && !action->isChecked());
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        action->setChecked(true);
        QTRY_COMPARE(finished.count(), 1);
        QVERIFY(LoadController::wholeHistory()); // remembered
        QCOMPARE(liveStart(*w.transcript()), std::size_t(0));
        QVERIFY(tokens::totalEstimate(*w.transcript()) > liveTokens);
        QVERIFY(!w.statusPanel()->summaryText().contains(QStringLiteral("of history")));
        action->setChecked(false);
        QTRY_COMPARE(finished.count(), 2);
        QCOMPARE(tokens::totalEstimate(*w.transcript()), liveTokens);
    }

    // View › Token Count: the plain estimate counts every surface again (status bar, gauge, chart,
    // composition, analysis, strategy inputs) with the same figure, the window unchanged; remembered.
    void tokenCountSwitchRecountsEverySurface()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(kMeasured));
        const Transcript &t = *w.transcript();
        auto *gauge = w.findChild<ContextGauge *>();
        const qint64 window = gauge->contextWindow();
        const std::int64_t calibrated = tokens::contextFigure(t).total;
        QCOMPARE(gauge->estimated(), qint64(calibrated));

        auto *plain = w.findChild<QAction *>(QStringLiteral("tokenCount_seed"));
        QVERIFY(plain && plain->isCheckable() && !plain->isChecked());
        plain->trigger();
        QVERIFY(plain->isChecked());
        QCOMPARE(tokencount::chosen(), tokens::Estimator::Seed);
        QCOMPARE(QSettings().value(QStringLiteral("view/tokenCount")).toString(), QStringLiteral("seed"));

        const tokens::ContextFigure seed = tokens::contextFigure(t, tokens::Estimator::Seed);
        QCOMPARE(seed.basis, tokens::ContextFigure::Basis::Seed);
        QVERIFY2(seed.total != calibrated, "the fixture's calibrated and plain figures differ");
        QCOMPARE(gauge->contextWindow(), window);
        QCOMPARE(gauge->estimated(), qint64(seed.total));
        QCOMPARE(w.findChild<UsageChart *>()->data().estimateNow, qint64(seed.total));
        QVERIFY2(w.statusPanel()->summaryText().contains(
                     QStringLiteral("live context %1 (").arg(QLocale().toString(qlonglong(seed.total)))),
                 qPrintable(w.statusPanel()->summaryText()));
        w.compositionPanel()->refreshNow();
        QVERIFY(w.compositionPanel()->composition());
        QCOMPARE(w.compositionPanel()->composition()->total, seed.total);
        QTRY_VERIFY(w.analysis());
        QCOMPARE(w.analysis()->usage.tokens, seed.total);
        QCOMPARE(w.strategyPanel()->analysisOptions().estimator, tokens::Estimator::Seed);
        const QString session = AnalysisPanel::sessionHtml(t, *w.analysis(), false);
        QVERIFY2(session.contains(QStringLiteral("live context / target")) && session.contains(QLocale().toString(qlonglong(seed.total)) + QStringLiteral(" / ")),
                 qPrintable(session));

        // Back to the agent's count: the first figures again.
        w.findChild<QAction *>(QStringLiteral("tokenCount_calibrated"))->trigger();
        QCOMPARE(gauge->estimated(), qint64(calibrated));
        QTRY_VERIFY(w.analysis());
        QCOMPARE(w.analysis()->usage.tokens, calibrated);
    }
};

QTEST_MAIN(TestLiveContextGui)
#include "tst_livecontextgui.moc"
