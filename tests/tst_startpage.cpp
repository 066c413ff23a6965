// SPDX-License-Identifier: MIT
// The start page, headless with real widgets: with no transcript the window shows the agents'
// sessions on this machine (one click opens one), the recent files (one click), Open File and the
// demo; the gauge and the map wait for a transcript; opening one brings the tabs.
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/startpage.h"
#include "widgets/models/roles.h"
#include "widgets/sessions/sessionbrowser.h"
#include "widgets/transcript/contextgauge.h"

#include "sessions_fixture.h"
#include "test_support.h"

#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTreeView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

// The view index of the session whose file is `path` (sessions sit under their project row).
QModelIndex sessionRow(QTreeView *view, const QString &path)
{
    QAbstractItemModel *m = view->model();
    for (int p = 0; p < m->rowCount(); ++p) {
        const QModelIndex project = m->index(p, 0);
        if (project.data(SessionPathRole).toString() == path)
            return project;
        for (int s = 0; s < m->rowCount(project); ++s)
            if (m->index(s, 0, project).data(SessionPathRole).toString() == path)
                return m->index(s, 0, project);
    }
    return {};
}

bool onStartPage(MainWindow &w)
{
    return w.startPage()->isVisible() && !w.centralTabs()->isVisible();
}

} // namespace

class TestStartPage : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sessionsOpenWithOneClick();
    void recentFilesAndDemo();
};

void TestStartPage::sessionsOpenWithOneClick()
{
    const std::string home = QDir::homePath().toStdString();
    cl::test::sessions::writeClaude(home);
    const QString session = QString::fromStdString(cl::test::sessions::claudeShop(home));
    MainWindow w;
    w.resize(1280, 800);
    QSignalSpy scanned(w.startPage()->sessions(), &SessionBrowser::scanned);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(onStartPage(w));
    QVERIFY(!w.findChild<ContextGauge *>() || !w.findChild<ContextGauge *>()->isVisible());
    QVERIFY(scanned.wait(30000)); // shown: the page scans this machine's sessions
    QTreeView *tree = w.startPage()->sessions()->view();
    tree->expandAll();
    const QModelIndex row = sessionRow(tree, session);
    QVERIFY2(row.isValid(), "the Claude Code session is listed");
    QTest::qWait(50);
    w.grab().save(QStringLiteral(CL_BINARY_DIR "/start-page.png"));

    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, tree->visualRect(row).center());
    QVERIFY(loaded.wait(20000));
    QCOMPARE(loaded.takeFirst().at(0).toBool(), true);
    QCOMPARE(QFileInfo(w.currentPath()).canonicalFilePath(), QFileInfo(session).canonicalFilePath());
    QVERIFY(!w.startPage()->isVisible());
    QVERIFY(w.centralTabs()->isVisible());
    // The double-click's second half does not open it again.
    QTest::qWait(300);
    QCOMPARE(loaded.count(), 0);
}

void TestStartPage::recentFilesAndDemo()
{
    const std::string home = QDir::homePath().toStdString();
    const QString gone = QDir::home().filePath(QStringLiteral("gone.jsonl"));
    const QString demo = bundledDemoPath();
    QVERIFY2(!demo.isEmpty(), "the demo transcript is found from the build tree");
    {
        MainWindow first;
        first.setShowErrorDialogs(false);
        QVERIFY(first.openFileNow(demo));
    }
    QSettings().setValue(QStringLiteral("recentFiles"), QStringList{QFileInfo(demo).absoluteFilePath(), gone});
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1024, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(onStartPage(w));
    QListWidget *recent = w.startPage()->recentList();
    QCOMPARE(recent->count(), 2);
    QVERIFY(recent->item(0)->text().startsWith(QFileInfo(demo).fileName()));
    QVERIFY(recent->item(0)->flags() & Qt::ItemIsEnabled);
    QVERIFY(!(recent->item(1)->flags() & Qt::ItemIsEnabled)); // a file that is gone cannot be clicked
    auto *demoButton = w.startPage()->findChild<QPushButton *>(QStringLiteral("startOpenDemo"));
    QVERIFY(demoButton && demoButton->isVisible());
    // Everything on the page fits 1024x700: nothing pushes the window wider.
    QVERIFY2(w.minimumSizeHint().width() <= 1024, QByteArray::number(w.minimumSizeHint().width()));
    w.grab().save(QStringLiteral(CL_BINARY_DIR "/start-page-1024.png"));

    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    QTest::mouseClick(recent->viewport(), Qt::LeftButton, {}, recent->visualItemRect(recent->item(0)).center());
    QVERIFY(loaded.wait(20000));
    QVERIFY(loaded.takeFirst().at(0).toBool());
    QVERIFY(!onStartPage(w));
    QCOMPARE(QFileInfo(w.currentPath()).canonicalFilePath(), QFileInfo(demo).canonicalFilePath());
}

QTEST_MAIN(TestStartPage)
#include "tst_startpage.moc"
