// SPDX-License-Identifier: MIT
#include "core/jsonutil.h"
#include <QtTest>
class TestCore : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void splitLines() { QCOMPARE(cl::json::splitLines("a\nb\r\nc").size(), std::size_t(3)); }
};
QTEST_GUILESS_MAIN(TestCore)
#include "tst_core.moc"
