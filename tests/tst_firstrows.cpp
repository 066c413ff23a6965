// SPDX-License-Identifier: MIT
// A large session's first messages on screen while the whole file loads (LoadController loads the
// file's first MiB on its own): the rows are the file's first messages, the rest of the window keeps
// what it showed until the whole file is there, a failed or cancelled load gives that back, and a
// small file loads as before.
#include "core/generator/generator.h"
#include "widgets/mainwindow/loadcontroller.h"
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/openmilestones.h"
#include "widgets/mainwindow/statuspanel.h"
#include "widgets/mainwindow/startpage.h"
#include "widgets/models/transcriptfiltermodel.h"
#include "widgets/models/transcriptmodel.h"
#include "widgets/transcript/detailpane.h"
#include "widgets/transcript/transcriptpanel.h"

#include "test_support.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <fstream>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

// A generated Claude Code session of about `bytes`.
QString writeSession(const QTemporaryDir &dir, const char *name, std::size_t bytes)
{
    gen::Options o;
    o.format = Format::ClaudeCode;
    o.targetBytes = bytes;
    o.seed = 7;
    const QString path = dir.path() + QLatin1Char('/') + QLatin1String(name);
    std::ofstream(path.toStdString(), std::ios::binary) << gen::generate(o);
    return path;
}

QString previewAt(const QAbstractItemModel *model, int row)
{
    return model->index(row, TranscriptModel::PreviewColumn).data().toString();
}

} // namespace

class TestFirstRows : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void firstRowsComeBeforeTheWholeFile();
    void cancelGivesBackWhatWasShown();
    void smallFileLoadsAtOnce();

private:
    QTemporaryDir m_dir;
    QString m_big;
};

void TestFirstRows::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_big = writeSession(m_dir, "big.jsonl", 48u << 20);
    QVERIFY(QFileInfo(m_big).size() >= LoadController::kFirstRowsFrom);
}

void TestFirstRows::firstRowsComeBeforeTheWholeFile()
{
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.startPage()->isVisible());
    OpenMilestones *milestones = OpenMilestones::of(&w);
    QSignalSpy painted(milestones, &OpenMilestones::firstRowsPainted);
    QSignalSpy finished(&w, &MainWindow::loadFinished);
    TranscriptPanel *panel = w.transcriptPanel();
    // What the first rows showed, taken when they were painted (before the whole file came).
    int firstRows = -1, finishedThen = -1;
    QString firstPreview, lastPreview, status;
    bool windowEmpty = false, startHidden = false;
    connect(milestones, &OpenMilestones::firstRowsPainted, this, [&] {
        firstRows = panel->model()->rowCount();
        firstPreview = previewAt(panel->model(), 0);
        lastPreview = previewAt(panel->model(), firstRows - 1);
        finishedThen = int(finished.count());
        windowEmpty = !w.transcript() && panel->showsFirstRows();
        startHidden = !w.startPage()->isVisible();
        status = w.statusPanel()->summaryText();
        w.grab().save(QStringLiteral(CL_BINARY_DIR "/first-rows.png"));
        // Selecting a row tells the rest of the window nothing: it has no transcript yet.
        panel->view()->setCurrentIndex(panel->filterModel()->index(0, 0));
        QCoreApplication::processEvents();
    });
    w.openFile(m_big);
    QVERIFY(finished.wait(120000));
    QCOMPARE(painted.count(), 1);
    QCOMPARE(finishedThen, 0);
    QVERIFY(windowEmpty);
    QVERIFY(startHidden);
    QVERIFY(w.detailPane()->text().isEmpty());
    QVERIFY(firstRows > 10);
    QVERIFY2(status.startsWith(QStringLiteral("Loading big.jsonl… its first %1 messages shown").arg(firstRows)), qPrintable(status));
    QVERIFY(!w.statusPanel()->summaryText().contains(QStringLiteral("Loading")));
    // The whole file: more rows, the first ones the same messages.
    QVERIFY(!panel->showsFirstRows());
    QVERIFY(w.transcript());
    QVERIFY(panel->model()->rowCount() > firstRows);
    QCOMPARE(previewAt(panel->model(), 0), firstPreview);
    QCOMPARE(previewAt(panel->model(), firstRows - 1), lastPreview);
    // Opening it again (File › Reload, a recent file): the window shows it whole already.
    const int rows = panel->model()->rowCount();
    w.openFile(m_big);
    QVERIFY(finished.wait(120000));
    QCOMPARE(painted.count(), 1);
    QCOMPARE(panel->model()->rowCount(), rows);
}

void TestFirstRows::cancelGivesBackWhatWasShown()
{
    QTemporaryDir small;
    const QString shownBefore = writeSession(small, "small.jsonl", 200u << 10);
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.resize(1280, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.openFileNow(shownBefore));
    const auto before = w.transcript();
    const int rowsBefore = w.transcriptPanel()->model()->rowCount();
    QSignalSpy painted(OpenMilestones::of(&w), &OpenMilestones::firstRowsPainted);
    QSignalSpy finished(&w, &MainWindow::loadFinished);
    // The user presses the status bar's Cancel as soon as the first rows are there.
    connect(OpenMilestones::of(&w), &OpenMilestones::firstRowsPainted, &w, [&w] {
        QPushButton *cancel = w.statusPanel()->findChild<QPushButton *>();
        QVERIFY(cancel && cancel->isVisible());
        cancel->click();
    });
    w.openFile(m_big);
    QTRY_COMPARE_WITH_TIMEOUT(painted.count(), 1, 60000);
    QVERIFY(!w.isLoading());
    QVERIFY(!w.transcriptPanel()->showsFirstRows());
    QCOMPARE(w.transcript(), before);
    QCOMPARE(w.transcriptPanel()->model()->transcript(), before);
    QCOMPARE(w.transcriptPanel()->model()->rowCount(), rowsBefore);
    QTest::qWait(100);
    QCOMPARE(finished.count(), 0); // the cancelled load delivers nothing
}

void TestFirstRows::smallFileLoadsAtOnce()
{
    QTemporaryDir small;
    const QString path = writeSession(small, "small.jsonl", 2u << 20);
    MainWindow w;
    w.setShowErrorDialogs(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy painted(OpenMilestones::of(&w), &OpenMilestones::firstRowsPainted);
    QSignalSpy finished(&w, &MainWindow::loadFinished);
    w.openFile(path);
    QVERIFY(finished.wait(60000));
    QCOMPARE(painted.count(), 0);
    QVERIFY(!w.transcriptPanel()->showsFirstRows());
}

QTEST_MAIN(TestFirstRows)
#include "tst_firstrows.moc"
