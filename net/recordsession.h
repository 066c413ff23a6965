// SPDX-License-Identifier: MIT
#pragma once

// `contextlens-cli record` once its arguments are read (cli/record.cpp): the recording file opened,
// the proxy listening, then either an agent started against it (its exit code becomes ours) or a
// wait for SIGINT / SIGTERM (exit 0). Talks to the terminal itself: the listening line and the
// warnings go to standard error as they happen. Needs a QCoreApplication.

#include "core/workflow/requestrewrite.h"

#include <optional>
#include <string>
#include <vector>

namespace cl::net {

// host: an IP address (not loopback: allowed, with a warning); port 0: any free port; upstream
// empty: by path; agent empty: no agent; rewrite: compaction on the wire (each request through the
// strategy; a line on standard error for each it changed). Returns the exit code: the agent's (128 + signal when it
// was killed, 127 when it cannot be started), 0 after a signal, 2 when the proxy cannot start.
int runRecording(const std::string &host, int port, const std::string &upstream, const std::string &output,
                 const std::vector<std::string> &agent, const std::optional<wire::RewriteOptions> &rewrite);

} // namespace cl::net
