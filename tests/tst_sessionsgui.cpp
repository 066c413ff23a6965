// SPDX-License-Identifier: MIT
// The session browser (widgets/sessions/sessionbrowser.h) on a fake home with all three agents'
// layouts (tests/sessions_fixture.h), offscreen: it scans only when shown, lists exactly what the
// engine lists grouped by project, sorts numerically, filters by text and agent, rescans from the
// cache reading only what changed, and a double-click opens the session in the main window.
#include "core/sessions/sessions.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/models/roles.h"
#include "widgets/models/sessionmodel.h"
#include "widgets/sessions/sessionbrowser.h"

#include "sessions_fixture.h"
#include "test_support.h"

#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <set>

using namespace cl;
using namespace cl::gui;
namespace fx = cl::test::sessions;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();

// The session paths the view shows (through its proxy), in order.
QStringList shownPaths(QTreeView *view)
{
    QStringList out;
    QAbstractItemModel *m = view->model();
    for (int p = 0; p < m->rowCount(); ++p) {
        const QModelIndex project = m->index(p, 0);
        for (int r = 0; r < m->rowCount(project); ++r)
            out << m->index(r, 0, project).data(SessionPathRole).toString();
    }
    return out;
}

} // namespace

class TestSessionsGui : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void browserListsFiltersAndOpens()
    {
        QTemporaryDir dir;
        const std::string home = dir.filePath(QStringLiteral("home")).toStdString();
        fx::writeHome(home);
        const QString cache = dir.filePath(QStringLiteral("sessions.json"));
        sessions::ScanOptions o;
        o.home = home;
        const sessions::ScanResult expected = sessions::scan(o);
        QVERIFY(expected.sessions.size() >= 5);

        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1400, 900);
        w.show();
        SessionBrowser *browser = w.sessionBrowser();
        browser->setHome(QString::fromStdString(home));
        browser->setCachePath(cache);
        QSignalSpy scanned(browser, &SessionBrowser::scanned);
        QVERIFY(w.sessionsDock()->isHidden()); // hidden: nothing scanned
        QTest::qWait(50);
        QCOMPARE(scanned.count(), 0);
        w.sessionsDock()->show();
        QVERIFY(scanned.wait(30000));

        // Exactly the engine's sessions, grouped by project.
        SessionModel *model = browser->model();
        QCOMPARE(model->sessions().size(), expected.sessions.size());
        QStringList want;
        for (const auto &s : expected.sessions)
            want << QString::fromStdString(s.path);
        QStringList shown = shownPaths(browser->view());
        QCOMPARE(shown.size(), want.size());
        for (const QString &p : want)
            QVERIFY(shown.contains(p));
        std::set<std::string> projects;
        for (const auto &s : expected.sessions)
            projects.insert(s.project.empty() ? std::string("(no project)") : s.project);
        QCOMPARE(model->projectCount(), int(projects.size()));
        // The Claude Code shop session's figures, as the engine has them.
        const QModelIndex shop = model->indexOfPath(QString::fromStdString(fx::claudeShop(home)));
        QVERIFY(shop.isValid());
        const sessions::Session *s = fx::find(expected.sessions, fx::claudeShop(home));
        QCOMPARE(shop.siblingAtColumn(SessionModel::PeakColumn).data(SortRole).toDouble(), double(s->peakContext));
        QCOMPARE(shop.siblingAtColumn(SessionModel::CompactionsColumn).data(SortRole).toDouble(), double(s->compactions));
        QCOMPARE(shop.data().toString(), QString::fromStdString(s->title));
        // Its cost: the engine's, priced by the shipped table (every model of it has a price there).
        QVERIFY(s->costComplete() && s->cost > 0);
        QCOMPARE(shop.siblingAtColumn(SessionModel::CostColumn).data(SortRole).toDouble(), s->cost);
        QCOMPARE(shop.siblingAtColumn(SessionModel::CostColumn).data().toString(),
                 QStringLiteral("$%1").arg(QLocale().toString(s->cost, 'f', 4)));
        const QString costTip = shop.siblingAtColumn(SessionModel::CostColumn).data(Qt::ToolTipRole).toString();
        QVERIFY(costTip.contains(QLatin1String("claude-opus-4-1")));
        // The split: the session's own responses, then its subagent with usage (agent-a1 has none).
        const sessions::SubagentUsage &a2 = s->subagents[0].name == "agent-a2" ? s->subagents[0] : s->subagents[1];
        QVERIFY2(costTip.contains(QStringLiteral("subagent \"Run the tests\" (agent-a2), started by agent-a1: $%1").arg(QLocale().toString(a2.cost, 'f', 4))), qPrintable(costTip));
        QVERIFY2(costTip.contains(QStringLiteral("the session itself: $%1").arg(QLocale().toString(s->cost - a2.cost, 'f', 4))), qPrintable(costTip));
        QVERIFY(!costTip.contains(QLatin1String("subagent agent-a1"))); // no usage: no line of its own
        const QModelIndex checkpoint = model->indexOfPath(QString::fromStdString(fx::geminiCheckpoint(home)));
        QCOMPARE(checkpoint.siblingAtColumn(SessionModel::CostColumn).data().toString(), QString()); // no usage
        QCOMPARE(checkpoint.siblingAtColumn(SessionModel::CostColumn).data(SortRole).toDouble(), -1.0);
        // The project row sums its sessions.
        const QModelIndex shopProject = shop.parent();
        double sum = 0;
        for (int r = 0; r < model->rowCount(shopProject); ++r)
            if (const sessions::Session *one = model->sessionAt(model->index(r, 0, shopProject)); one && one->hasCost())
                sum += one->cost;
        QCOMPARE(model->index(shopProject.row(), SessionModel::CostColumn).data(SortRole).toDouble(), sum);
        QCOMPARE(model->headerData(SessionModel::CostColumn, Qt::Horizontal).toString(), QStringLiteral("Cost"));

        // Sorting by peak context, largest first, inside each project.
        browser->view()->sortByColumn(SessionModel::PeakColumn, Qt::DescendingOrder);
        QAbstractItemModel *m = browser->view()->model();
        for (int p = 0; p < m->rowCount(); ++p) {
            const QModelIndex project = m->index(p, 0);
            for (int r = 1; r < m->rowCount(project); ++r)
                QVERIFY(m->index(r - 1, SessionModel::PeakColumn, project).data(SortRole).toDouble()
                        >= m->index(r, SessionModel::PeakColumn, project).data(SortRole).toDouble());
        }
        // And by cost, the most expensive first.
        browser->view()->sortByColumn(SessionModel::CostColumn, Qt::DescendingOrder);
        for (int p = 0; p < m->rowCount(); ++p) {
            const QModelIndex project = m->index(p, 0);
            for (int r = 1; r < m->rowCount(project); ++r)
                QVERIFY(m->index(r - 1, SessionModel::CostColumn, project).data(SortRole).toDouble()
                        >= m->index(r, SessionModel::CostColumn, project).data(SortRole).toDouble());
        }
        // Filters: agent, then text.
        browser->agentCombo()->setCurrentIndex(browser->agentCombo()->findData(QStringLiteral("codex")));
        shown = shownPaths(browser->view());
        QCOMPARE(shown, QStringList{QString::fromStdString(fx::codexRollout(home))});
        browser->agentCombo()->setCurrentIndex(0);
        browser->filterEdit()->setText(QStringLiteral("checkout fix"));
        QCOMPARE(shownPaths(browser->view()), QStringList{QString::fromStdString(fx::claudeShop(home))});
        // The count says what the filter leaves.
        QVERIFY2(browser->status()->text().startsWith(QStringLiteral("1 of %1 sessions shown").arg(browser->model()->sessions().size())),
                 qPrintable(browser->status()->text()));
        browser->filterEdit()->clear();
        QVERIFY(!browser->status()->text().contains(QStringLiteral("shown")));

        // A rescan reads nothing that did not change.
        browser->rescan();
        QVERIFY(scanned.wait(30000));
        QCOMPARE(browser->lastStats().parsed, std::size_t(0));
        QVERIFY(browser->status()->text().contains(QStringLiteral("from the cache")));
        QVERIFY(w.grab().save(QStringLiteral(CL_BINARY_DIR "/sessions-dock.png")));

        // Activating a session opens it.
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        const QModelIndex shownShop = [&] {
            QAbstractItemModel *pm = browser->view()->model();
            for (int p = 0; p < pm->rowCount(); ++p)
                for (int r = 0; r < pm->rowCount(pm->index(p, 0)); ++r) {
                    const QModelIndex i = pm->index(r, 0, pm->index(p, 0));
                    if (i.data(SessionPathRole).toString() == QString::fromStdString(fx::claudeShop(home)))
                        return i;
                }
            return QModelIndex();
        }();
        QVERIFY(shownShop.isValid());
        Q_EMIT browser->view()->activated(shownShop);
        QVERIFY(loaded.wait(30000));
        QCOMPARE(w.transcript()->path, fx::claudeShop(home));
    }
};

QTEST_MAIN(TestSessionsGui)
#include "tst_sessionsgui.moc"
