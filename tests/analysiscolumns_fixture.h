// SPDX-License-Identifier: MIT
#pragma once

// The small hand-checked transcript shared by tst_analysiscolumns and tst_analysisdelegates.

#include "core/analysis/analysis.h"
#include "core/io/loader.h"

#include <QtGlobal>

#include <memory>

namespace fixture {

using namespace cl;
namespace an = cl::analysis;

inline const bool kEnvironment = [] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    return true;
}();

// Messages (transcript index = row):
//   0 system     "You are a coding agent."
//   1 user       "Please fix the bug in app.py"                 request
//   2 assistant  text + Bash pytest (t1)                       round 1
//   3 user       tool_result t1, is_error                        round 1, failed
//   4 assistant  text + Write app.py (t2)                        round 2 (chained: no request between)
//   5 user       tool_result t2 "File written"                   round 2
//   6 assistant  "Fixed: add now returns the sum."
//   7 user       "Thanks, now explain it"                        request
//   8 assistant  "It adds two numbers."
inline const char *kSmall = R"({"model":"claude-sonnet-4-5","max_tokens":1024,
 "system":"You are a coding agent.",
 "messages":[
  {"role":"user","content":"Please fix the bug in app.py"},
  {"role":"assistant","content":[{"type":"text","text":"Let me run the tests."},
    {"type":"tool_use","id":"t1","name":"Bash","input":{"command":"pytest"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","is_error":true,"content":"FAILED test_app.py::test_add"}]},
  {"role":"assistant","content":[{"type":"text","text":"I will rewrite the file."},
    {"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"app.py","content":"def add(a, b): return a + b"}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"File written"}]},
  {"role":"assistant","content":"Fixed: add now returns the sum."},
  {"role":"user","content":"Thanks, now explain it"},
  {"role":"assistant","content":"It adds two numbers."}]})";

inline std::shared_ptr<const Transcript> smallTranscript()
{
    LoadResult r = loadBytes(kSmall, "small.json");
    return r.transcript;
}

inline std::shared_ptr<const an::Analysis> analyse(const Transcript &t, int minIndex = 1)
{
    an::AnalysisOptions o;
    o.minIndex = minIndex; // the default 10 leaves no boundary range in nine messages
    o.window = 2;
    return std::make_shared<const an::Analysis>(an::analyze(t, o));
}

} // namespace fixture
