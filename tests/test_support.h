// SPDX-License-Identifier: MIT
#pragma once

// Helpers shared by the test executables (header-only: every tests/tst_*.cpp is its own program).

#include "core/cli/cli.h"
#include "core/generator.h"
#include "core/tokens.h"
#include "core/transcript.h"

#include <QCoreApplication>
#include <QtGlobal>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

inline std::string readFile(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

} // namespace cl::test
