// SPDX-License-Identifier: MIT
#include "core/util/allocator.h"
#include "cli/cli.h"
#include "cli/summarizer.h"
#include "net/modelsummarizer.h"
#include "net/recordsession.h"

#include <QCoreApplication>

#include <cstdio>

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    // Model summaries talk to their provider through Qt Network, which needs an application object.
    QCoreApplication app(argc, argv);
    cl::cli::setSummarizerFactory(cl::net::makeModelSummarizer);
    cl::cli::setRecordRunner(cl::net::runRecording);
    return cl::cli::run(argc, argv, stdout, stderr);
}
