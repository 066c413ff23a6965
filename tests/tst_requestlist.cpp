// SPDX-License-Identifier: MIT
// The window with a recording (widgets/sessions/requestlist.h, mainwindow_requests.cpp): opening a
// request of it shows the Requests dock with every request, read in the background, the shown one
// in bold; a double-click (or Enter) opens another; opening a session file hides the dock again.
#include "widgets/mainwindow/mainwindow.h"
#include "widgets/mainwindow/recentfiles.h"
#include "widgets/models/requestlistmodel.h"
#include "widgets/sessions/cachechart.h"
#include "widgets/sessions/requestlist.h"

#include "recording_fixture.h"
#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {
const bool kEnvironment = cl::test::guiEnvironment();

bool waitForList(RequestList *list)
{
    list->waitForWork();
    return QTest::qWaitFor([list] { return !list->isReading(); }, 10000);
}

} // namespace

class TestRequestList : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = m_dir.filePath(QStringLiteral("rec.jsonl"));
        test::writeFile(m_path.toStdString(), test::recordingfixture::recordingText());
    }

    void listsAndOpensRequests()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.resize(1400, 900);
        w.show();
        QVERIFY(w.openFileNow(m_path + QStringLiteral("#1")));
        QCOMPARE(w.transcript()->messages.size(), std::size_t(3)); // system, user, the answer
        QVERIFY(w.requestsDock()->isVisible());
        RequestList *list = w.requestList();
        QVERIFY(waitForList(list));
        QAbstractItemModelTester tester(list->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(list->model()->rowCount(), 8);
        QCOMPARE(list->model()->current(), std::size_t(1));
        QVERIFY(list->model()->index(0, 0).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!list->model()->index(2, 0).data(Qt::FontRole).value<QFont>().bold());
        QCOMPARE(list->model()->index(0, RequestListModel::MeasuredColumn).data().toString(), QLocale().toString(1060));
        QVERIFY(list->status()->text().contains(QStringLiteral("8 requests, 7 model calls")));
        QVERIFY(list->model()->index(5, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("Overloaded")));
        // The prompt cache: request 8 (a new run) replaced request 7's conversation; the chart has a
        // bar for each request the provider measured (1, 3, 4, 5, 8), request 8's marked.
        QCOMPARE(list->model()->index(0, RequestListModel::CacheColumn).data().toString(), QStringLiteral("first"));
        QCOMPARE(list->model()->index(7, RequestListModel::CacheColumn).data().toString(), QStringLiteral("break: conversation replaced"));
        QVERIFY(list->model()->index(7, 0).data(Qt::ToolTipRole).toString().contains(QStringLiteral("none in common")));
        const auto &points = list->cacheChart()->points();
        QCOMPARE(points.size(), std::size_t(5));
        QCOMPARE(points.back().number, std::size_t(8));
        QVERIFY(points.back().broke && !points.front().broke);
        QCOMPARE(points.front().read, qint64(1000));
        QVERIFY(list->status()->text().contains(QStringLiteral("prompt cache broke 1 time")));
        // A click on a bar selects its request in the list.
        const auto bars = list->cacheChart()->bars();
        QTest::mouseClick(list->cacheChart(), Qt::LeftButton, {}, bars[2].slot.center().toPoint());
        QCOMPARE(list->view()->currentIndex().row(), 3);
        w.grab().save(QStringLiteral(CL_BINARY_DIR "/requests-dock.png"));

        // A double-click on request 3 opens it (in the background); the list stays, 3 now in bold.
        QSignalSpy finished(&w, &MainWindow::loadFinished);
        QTableView *view = list->view();
        const QModelIndex third = view->model()->index(2, RequestListModel::ApiColumn);
        view->scrollTo(third);
        // QTest's double click sends no press first; the view needs the press of a real one.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(third).center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(third).center());
        QVERIFY(finished.wait(10000));
        QCOMPARE(w.currentPath(), m_path + QStringLiteral("#3"));
        QCOMPARE(w.transcript()->format, Format::OpenAIChat);
        QCOMPARE(list->model()->current(), std::size_t(3));
        QVERIFY(list->model()->index(2, 0).data(Qt::FontRole).value<QFont>().bold());
        QVERIFY(!list->isReading()); // the same recording, unchanged: not read again
        // The recent files list the recording (its own path exists; it reopens at its last request).
        const RecentFiles *recent = w.findChild<RecentFiles *>();
        QVERIFY(recent);
        QCOMPARE(recent->files().value(0), QFileInfo(m_path).absoluteFilePath());

        // Enter on the count_tokens row does nothing (not a model call); on request 5 it opens it.
        view->setCurrentIndex(view->model()->index(1, 0));
        QTest::keyClick(view, Qt::Key_Return);
        QVERIFY(!finished.wait(300));
        view->setCurrentIndex(view->model()->index(4, 0));
        QTest::keyClick(view, Qt::Key_Return);
        QVERIFY(finished.wait(10000));
        QCOMPARE(w.transcript()->format, Format::Gemini);

        // A session file: the dock goes away.
        const QString session = m_dir.filePath(QStringLiteral("plain.json"));
        test::writeFile(session.toStdString(), R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
        QVERIFY(w.openFileNow(session));
        QVERIFY(!w.requestsDock()->isVisible());
        QVERIFY(list->file().isEmpty());
    }

    // The recording itself opens its agent's last request; one that changed on disk is read again.
    void theRecordingAloneAndRereading()
    {
        MainWindow w;
        w.setShowErrorDialogs(false);
        w.show();
        QVERIFY(w.openFileNow(m_path));
        QCOMPARE(w.currentPath(), m_path);
        QCOMPARE(w.transcript()->path, QString(m_path + QStringLiteral("#8")).toStdString());
        RequestList *list = w.requestList();
        QVERIFY(waitForList(list));
        QCOMPARE(list->model()->current(), std::size_t(8));
        test::appendFile(m_path.toStdString(), test::recordingfixture::requestLine(2, "/v1/messages", {{"model", "m"}, {"messages", nlohmann::json::array()}}).dump() + "\n");
        QVERIFY(w.openFileNow(m_path + QStringLiteral("#1")));
        QVERIFY(waitForList(list));
        QCOMPARE(list->model()->rowCount(), 9);
    }

private:
    QTemporaryDir m_dir;
    QString m_path;
};

QTEST_MAIN(TestRequestList)
#include "tst_requestlist.moc"
