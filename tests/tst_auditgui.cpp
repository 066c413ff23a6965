// SPDX-License-Identifier: MIT
// The compaction audit dock (widgets/analysis/auditpanel.h) in the real main window, offscreen: it
// computes nothing while hidden; shown, it lists the session's compactions with the engine's figures,
// the replaced history beside the agent's summary with the dropped facts, the agent's row above the
// strategies' rows; a replaced message double-clicked selects it in the transcript.
#include "core/workflow/audit.h"
#include "widgets/analysis/auditpanel.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QTreeView>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();
const QString kCodex = QStringLiteral(CL_TEST_DATA_DIR "/codex/live-compacted.jsonl");

// The transcript index of the panel's current row.
int selectedMessage(MainWindow &w)
{
    QModelIndex source = w.transcriptPanel()->filterModel()->mapToSource(w.transcriptPanel()->view()->currentIndex());
    while (source.parent().isValid())
        source = source.parent();
    return source.isValid() ? source.row() : -1;
}

} // namespace

class TestAuditGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dockShowsTheEnginesAudit()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1500, 900);
        w.show();
        QVERIFY(w.openFileNow(kCodex));
        AuditPanel *panel = w.auditPanel();
        QVERIFY(!panel->isActive());
        QVERIFY(panel->compactions().empty()); // hidden: nothing computed
        w.auditDock()->raise();
        QVERIFY(QTest::qWaitFor([&] { return panel->isActive(); }, 5000));
        QVERIFY(QTest::qWaitFor([&] { return !panel->isBusy() && !panel->compactions().empty(); }, 30000));

        const std::vector<audit::Compaction> expected = audit::auditCompactions(*w.transcript());
        QCOMPARE(panel->compactions().size(), expected.size());
        QCOMPARE(panel->compactionList()->topLevelItemCount(), int(expected.size()));
        const audit::Compaction &c = expected.back();
        QCOMPARE(panel->selectedCompaction(), int(expected.size()) - 1); // the latest one
        QCOMPARE(panel->compactionList()->currentItem()->text(1), QString::number(c.boundary));
        QVERIFY(panel->compactionList()->currentItem()->text(5).startsWith(QStringLiteral("%1 / %2").arg(c.kept.size()).arg(c.factsTotal())));

        // The replaced history: its turns, in order; the summary side names each dropped fact.
        QCOMPARE(std::size_t(panel->history()->count()), c.replacedMessages);
        const QString side = panel->summaryView()->toPlainText();
        QVERIFY(!c.dropped.empty());
        for (const auto &f : c.dropped)
            QVERIFY2(side.contains(QString::fromStdString(f.text)), qPrintable(side));
        QVERIFY(side.contains(QString::fromStdString(c.summary)));
        // The agent's row, then one per strategy with the engine's figures.
        QTreeWidget *rows = panel->strategyTable();
        QCOMPARE(rows->topLevelItemCount(), int(c.strategies.size()) + 1);
        QCOMPARE(rows->topLevelItem(0)->text(1), QLocale().toString(qlonglong(c.tokensAfter)));
        for (std::size_t k = 0; k < c.strategies.size(); ++k)
            if (c.strategies[k].error.empty())
                QCOMPARE(rows->topLevelItem(int(k) + 1)->text(1), QLocale().toString(qlonglong(c.strategies[k].tokensAfter)));

        // Activating a replaced message selects it in the transcript.
        QListWidgetItem *item = panel->history()->item(0);
        const int message = item->data(Qt::UserRole + 1).toInt();
        Q_EMIT panel->history()->itemActivated(item);
        QVERIFY(QTest::qWaitFor([&] { return selectedMessage(w) == message; }, 5000));
        QVERIFY(message >= int(c.from) && message < int(c.boundary));
        QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/audit-dock.png")));
    }

    void noCompactionSaysSo()
    {
        AuditPanel panel;
        auto t = std::make_shared<Transcript>();
        Message m;
        m.role = Role::User;
        Block b;
        b.type = BlockType::Text;
        b.text = "hello";
        m.blocks.push_back(b);
        t->messages.push_back(m);
        panel.setTranscript(t);
        panel.refreshNow();
        QVERIFY(panel.compactions().empty());
        QVERIFY(panel.header()->text().contains(QStringLiteral("No compaction")));
    }
};

QTEST_MAIN(TestAuditGui)
#include "tst_auditgui.moc"
