// SPDX-License-Identifier: MIT
// Hand edits (core/workflow/handedits.h): removing messages keeps tool pairs whole (a call goes with
// its result and the other way round), replacing results by a note touches exactly the results of the
// chosen messages and of their calls, pinned messages are refused and the note says so, and the
// result has a strategy's stats and validity.
#include "core/io/validity.h"
#include "core/workflow/handedits.h"

#include "strategy_fixture.h"

#include <QtTest>

using namespace cl;
using cl::test::tierfix::Builder;
using cl::test::tierfix::prose;
using strategy::Fate;

namespace {

// 0 system, 1 user, 2 call Read, 3 result, 4 call Bash, 5 result (failed), 6 assistant, 7 user.
Transcript session()
{
    Builder b;
    b.text(Role::System, "You are a coding agent.");
    b.text(Role::User, "Fix the parser in /src/a.py.");
    b.tool("Read", {{"file_path", "/src/a.py"}}, prose(6000, 1));
    b.tool("Bash", {{"command", "pytest -q"}}, "FAILED tests/test_parser.py::test_empty", true);
    b.text(Role::Assistant, "The parser is fixed.");
    b.text(Role::User, "Thanks.");
    return b.done();
}

} // namespace

class TestHandEdits : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void removingACallRemovesItsResult()
    {
        const Transcript t = session();
        strategy::Input in(t);
        handedit::Edit e;
        e.messages = {2}; // the Read call
        const strategy::Result r = handedit::run(in, e);
        QVERIFY2(r.changed, r.note.c_str());
        QCOMPARE(r.strategy, std::string("hand-edit"));
        QCOMPARE(r.fates[2].fate, Fate::Removed);
        QCOMPARE(r.fates[3].fate, Fate::Removed); // its result went with it
        for (std::size_t i : {0, 1, 4, 5, 6, 7})
            QCOMPARE(r.fates[i].fate, Fate::Kept);
        QVERIFY(r.violations.empty());
        QCOMPARE(r.stats.messagesAfter, r.stats.messagesBefore - 2);
        QVERIFY(r.stats.tokensAfter < r.stats.tokensBefore);
        const Transcript after = r.materialize(t);
        QVERIFY(validate(after, after.format).empty());
    }

    void removingAResultRemovesItsCall()
    {
        const Transcript t = session();
        strategy::Input in(t);
        handedit::Edit e;
        e.messages = {5, 7};
        const strategy::Result r = handedit::run(in, e);
        QCOMPARE(r.fates[4].fate, Fate::Removed);
        QCOMPARE(r.fates[5].fate, Fate::Removed);
        QCOMPARE(r.fates[7].fate, Fate::Removed);
        QCOMPARE(r.fates[2].fate, Fate::Kept);
        QVERIFY(r.violations.empty());
    }

    void pinnedMessagesAreRefused()
    {
        const Transcript t = session();
        strategy::Input in(t);
        in.pinned = {6};
        handedit::Edit e;
        e.messages = {6, 7};
        const strategy::Result r = handedit::run(in, e);
        QCOMPARE(r.fates[6].fate, Fate::Kept);
        QCOMPARE(r.fates[7].fate, Fate::Removed);
        QVERIFY2(r.note.find("1 pinned") != std::string::npos, r.note.c_str());
    }

    void replacingResultsByANote()
    {
        const Transcript t = session();
        strategy::Input in(t);
        handedit::Edit e;
        e.action = handedit::Action::ReplaceResults;
        e.messages = {2, 7}; // the Read call (its result is replaced) and a message without results
        e.note = "the file was read; it is long";
        const strategy::Result r = handedit::run(in, e);
        QVERIFY2(r.changed, r.note.c_str());
        QCOMPARE(r.fates[3].fate, Fate::Cleared);
        QCOMPARE(r.fates[5].fate, Fate::Kept); // not chosen
        QCOMPARE(r.fates[2].fate, Fate::Kept);
        const Transcript after = r.materialize(t);
        bool found = false;
        for (const Message &m : after.messages)
            for (const Block &b : m.blocks)
                if (b.type == BlockType::ToolResult && b.text == handedit::replacedResultText(e.note))
                    found = true;
        QVERIFY(found);
        QCOMPARE(after.messages.size(), t.messages.size());
        QVERIFY(r.stats.tokensAfter < r.stats.tokensBefore);
        QVERIFY(r.violations.empty());
        QVERIFY2(r.note.find("replaced 1 tool result") != std::string::npos, r.note.c_str());
    }

    void nothingChosenChangesNothing()
    {
        const Transcript t = session();
        strategy::Input in(t);
        handedit::Edit e;
        e.messages = {99};
        QVERIFY(!handedit::run(in, e).changed);
    }
};

QTEST_GUILESS_MAIN(TestHandEdits)
#include "tst_handedits.moc"
