// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the test executables (header-only: every tests/tst_*.cpp is its own program).

#include "cli/cli.h"
#include "core/generator/generator.h"
#include "core/tokens/estimator.h"
#include "core/model/transcript.h"

#include <nlohmann/json.hpp>

#include <QCoreApplication>
#include <QDir>
#include <QProcess>
#include <QtGlobal>
#include <QtTest>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cl::test {

// In CI (.ci/run sets CONTEXTLENS_CI=1; most CI systems set CI) missing test data is a failure, not a
// skip: a test that quietly skipped there would pass without testing anything.
inline bool inCi()
{
    return !qEnvironmentVariableIsEmpty("CONTEXTLENS_CI") || !qEnvironmentVariableIsEmpty("CI");
}

// The shared real samples (../shared/samples) are present.
inline bool samplesPresent()
{
    return QDir(QStringLiteral(CL_SAMPLES_DIR "/claude-code")).exists();
}

// The pinned BPE vocabularies (the build fetches them into build/vocab) are present.
inline bool vocabularyPresent()
{
    const QByteArray dir = qgetenv("CONTEXTLENS_VOCAB_DIR");
    return QFile::exists((dir.isEmpty() ? QStringLiteral(CL_BINARY_DIR "/vocab") : QString::fromLocal8Bit(dir))
                         + QStringLiteral("/o200k_base.tiktoken"));
}

} // namespace cl::test

// Skips the test outside CI when `condition` does not hold; fails it in CI.
#define CL_REQUIRE(condition, what)                                                             \
    do {                                                                                        \
        if (!(condition)) {                                                                     \
            if (cl::test::inCi())                                                               \
                QFAIL(qPrintable(QStringLiteral("missing in CI: ") + QString::fromUtf8(what))); \
            QSKIP(what);                                                                        \
        }                                                                                       \
    } while (false)
#define CL_REQUIRE_SAMPLES() CL_REQUIRE(cl::test::samplesPresent(), "the shared samples (../shared/samples)")
#define CL_REQUIRE_VOCAB() CL_REQUIRE(cl::test::vocabularyPresent(), "the BPE vocabularies (scripts/fetch-vocab.sh)")

namespace cl::test {

// GUI tests: the offscreen platform unless the caller chose one, and 96 dpi so that pixel
// expectations hold on any machine. Call before the QApplication exists (a namespace-scope
// initializer does: `const bool kGuiEnvironment = cl::test::guiEnvironment();`).
inline bool guiEnvironment()
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QCoreApplication::setAttribute(Qt::AA_Use96Dpi);
    return true;
}

// A generated session as the loader leaves one (tool pairs linked, tokens estimated), without the
// load-time text index (tests that need it call analysis::indexText).
inline Transcript generatedTranscript(Format f, std::size_t messages, std::uint64_t seed)
{
    gen::Options g;
    g.format = f;
    g.messages = messages;
    g.seed = seed;
    Transcript t = gen::generateTranscript(g);
    linkToolPairs(t);
    tokens::estimateAll(t);
    return t;
}

// The CLI run in-process, with what it printed and its exit code.
struct CliRun {
    int code = -1;
    std::string out;
    std::string err;
};
inline CliRun runCli(const std::vector<std::string> &args)
{
    CliRun r;
    r.code = cl::cli::run(args, r.out, r.err);
    return r;
}

inline void writeFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary) << bytes;
}

inline void appendFile(const std::string &path, const std::string &bytes)
{
    std::ofstream(path, std::ios::binary | std::ios::app) << bytes;
}

// The JSON Lines a process has written that are still to be read (`--json` output).
inline std::vector<nlohmann::json> readJsonLines(QProcess &process)
{
    std::vector<nlohmann::json> lines;
    while (process.canReadLine())
        lines.push_back(nlohmann::json::parse(process.readLine().toStdString()));
    return lines;
}

inline std::string readFile(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

} // namespace cl::test
