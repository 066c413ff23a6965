// SPDX-License-Identifier: MIT
// Events folded in the preview as in the transcript: on a real Claude Code session (most of its
// lines are progress and metadata), both sides of a strategy's preview hide the unchanged event
// rows, the message they fold into says "▸ N events", the change strip places its marks among the
// rows shown, and "Fold events" (remembered) shows them all again.
#include "core/io/loader.h"
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "widgets/models/resultmodel.h"
#include "widgets/strategy/changestrip.h"
#include "widgets/strategy/previewview.h"

#include "test_support.h"

#include <QCheckBox>
#include <QSettings>
#include <QTreeView>
#include <QtTest>

using namespace cl;
using namespace cl::gui;

namespace {

const bool kEnvironment = cl::test::guiEnvironment();
const std::string kReal = CL_SAMPLES_DIR "/../real-sessions/claude-code-2.1.39-compacted.jsonl";

// The rows a side hides (a negative number names the first row that is wrong): exactly its unchanged
// events that have a message to fold into, each message saying how many fold into it (those before
// the first message into the first).
int checkSide(QTreeView *view, ResultModel *model, bool fold)
{
    const int n = model->rowCount();
    std::vector<int> count(std::size_t(n), 0);
    std::vector<char> event(std::size_t(n), 0);
    int owner = -1, leading = 0;
    for (int r = 0; r < n; ++r) {
        event[std::size_t(r)] = model->message(r)->isEvent() && model->fate(r) == strategy::Fate::Kept;
        if (!event[std::size_t(r)]) {
            if (owner < 0)
                count[std::size_t(r)] = leading;
            owner = r;
        } else if (owner >= 0) {
            ++count[std::size_t(owner)];
        } else {
            ++leading;
        }
    }
    int hidden = 0;
    for (int r = 0; r < n; ++r) {
        const bool expectHidden = fold && event[std::size_t(r)] && owner >= 0;
        if (view->isRowHidden(r, {}) != expectHidden)
            return -1 - r;
        hidden += expectHidden;
        const QString role = model->index(r, ResultModel::RoleColumn).data().toString();
        const int k = fold ? count[std::size_t(r)] : 0;
        const QString badge = k == 1 ? QStringLiteral("\u25b8 1 event") : QStringLiteral("\u25b8 %1 events").arg(k);
        if (k > 0 ? !role.endsWith(badge) : role.contains(QChar(0x25b8)))
            return -1 - r;
    }
    return hidden;
}

} // namespace

class TestPreviewFolds : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void foldsBothSidesLikeTheTranscript();
};

void TestPreviewFolds::foldsBothSidesLikeTheTranscript()
{
    CL_REQUIRE(QFile::exists(QString::fromStdString(kReal)), "the real sessions (../shared/real-sessions)");
    QSettings().remove(QStringLiteral("preview/foldEvents"));
    const LoadResult loaded = loadFile(kReal);
    QVERIFY(loaded.ok());
    const std::shared_ptr<const Transcript> t = loaded.transcript;
    std::size_t events = 0;
    for (const Message &m : t->messages)
        events += m.isEvent();
    QVERIFY2(events > t->messages.size() / 2, "most of a real session's lines are events");
    const strategy::Strategy *s = strategy::find("trim-tools");
    QVERIFY(s);
    const auto r = std::make_shared<const strategy::Result>(strategy::run(*s, strategy::Input(*t), nlohmann::json{{"keepLastToolRounds", 2}}));
    QVERIFY(r->changed);

    PreviewView view;
    view.resize(1400, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setResult(t, r);
    QVERIFY(view.foldEventsBox()->isChecked()); // on by default
    const int leftHidden = checkSide(view.originalView(), view.originalModel(), true);
    const int rightHidden = checkSide(view.resultView(), view.resultModel(), true);
    QVERIFY2(leftHidden > int(events) / 2, qPrintable(QString::number(leftHidden)));
    QVERIFY2(rightHidden > 0, qPrintable(QString::number(rightHidden)));
    // The preview still opens at the first change, which shows.
    QVERIFY(!view.changedRows().empty());
    QCOMPARE(view.originalView()->currentIndex().row(), view.changedRows().front());
    QVERIFY(!view.originalView()->isRowHidden(view.changedRows().front(), {}));
    QVERIFY(view.originalView()->visualRect(view.originalView()->currentIndex()).isValid());
    // The strip's marks sit among the rows shown.
    const auto &marks = view.changeStrip()->marks();
    QCOMPARE(marks.size(), view.changedRows().size());
    for (const ChangeStrip::Mark &m : marks) {
        int shown = 0;
        for (int row = 0; row < m.row; ++row)
            shown += !view.originalView()->isRowHidden(row, {});
        QCOMPARE(m.at(), shown);
    }
    // F8 walks the changes over the folded rows.
    view.originalView()->setFocus();
    QTest::keyClick(view.originalView(), Qt::Key_F8);
    QCOMPARE(view.originalView()->currentIndex().row(), view.changedRows().at(1));

    // Unfolded: every row shows, no badge; the choice is remembered for the next preview.
    view.foldEventsBox()->setChecked(false);
    QCOMPARE(checkSide(view.originalView(), view.originalModel(), false), 0);
    QCOMPARE(checkSide(view.resultView(), view.resultModel(), false), 0);
    QCOMPARE(view.changeStrip()->marks().front().at(), view.changedRows().front());
    PreviewView second;
    QVERIFY(!second.foldEventsBox()->isChecked());
    view.foldEventsBox()->setChecked(true);
    QCOMPARE(checkSide(view.originalView(), view.originalModel(), true), leftHidden);
    QVERIFY(QSettings().value(QStringLiteral("preview/foldEvents")).toBool());
    QVERIFY(view.grab().save(QStringLiteral(CL_BINARY_DIR "/preview-folded.png")));
}

QTEST_MAIN(TestPreviewFolds)
#include "tst_previewfolds.moc"
