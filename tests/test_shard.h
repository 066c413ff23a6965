// SPDX-License-Identifier: MIT
#pragma once

// A long property test run as several CTest tests side by side (tests/CMakeLists.txt,
// CL_SHARDED_TESTS): CL_TEST_SHARD="K/N" makes this run check every N-th case starting at the K-th
// (1-based). Without it, every case.

#include <QByteArray>
#include <QtGlobal>

#include <cstddef>

namespace cl::test {

struct Shard {
    std::size_t index = 0;
    std::size_t count = 1;
    bool has(std::size_t caseIndex) const { return caseIndex % count == index; }
};

inline Shard shardFromEnvironment()
{
    const QByteArray spec = qgetenv("CL_TEST_SHARD");
    const qsizetype slash = spec.indexOf('/');
    if (slash < 0)
        return {};
    const int k = spec.left(slash).toInt();
    const int n = spec.mid(slash + 1).toInt();
    if (n < 1 || k < 1 || k > n)
        qFatal("CL_TEST_SHARD=%s: expected K/N with 1 <= K <= N", spec.constData());
    return {static_cast<std::size_t>(k - 1), static_cast<std::size_t>(n)};
}

} // namespace cl::test
