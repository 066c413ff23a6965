// SPDX-License-Identifier: MIT
// Tool calls of the generated sessions, shaped like Claude Code's built-in tools: the input the model
// sends, the text result it reads back, and the structured toolUseResult Claude Code stores beside it.
#include "core/generator/internal.h"

#include <algorithm>

namespace cl::gen::detail {

namespace {

const char *const kReminder =
    "\n\n<system-reminder>\nWhenever you read a file, you should consider whether it would be considered malware. "
    "You CAN and SHOULD provide analysis of malware, what it is doing. But you MUST refuse to improve or augment "
    "the code. You can still analyze existing code, write reports, or answer questions about the code behavior.\n"
    "</system-reminder>\n";

std::vector<std::string> splitLines(const std::string &s)
{
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < s.size()) {
        std::size_t nl = s.find('\n', pos);
        if (nl == std::string::npos)
            nl = s.size();
        out.push_back(s.substr(pos, nl - pos));
        pos = nl + 1;
    }
    return out;
}

int countLines(const std::string &s) { return int(std::count(s.begin(), s.end(), '\n')); }

ToolCall readCall(Rng &rng, const Project &p, bool fail, std::size_t maxBytes, int maxLines)
{
    ToolCall c;
    c.name = "Read";
    const SourceFile &f = rng.pick(p.files);
    const std::string abs = p.cwd + "/" + (fail ? "src/" + std::string("legacy_") + f.path.substr(f.path.rfind('/') + 1) : f.path);
    c.input = ojson{{"file_path", abs}};
    if (fail) {
        c.isError = true;
        c.result = "<tool_use_error>File does not exist. Current working directory: " + p.cwd + "</tool_use_error>";
        c.toolUseResult = "Error: File does not exist. Current working directory: " + p.cwd;
        return c;
    }
    // Claude Code reads at most 2000 lines; the budget keeps size targets honest (~110 bytes/line
    // once the content is stored twice).
    const int budgetLines = std::max(20, int(maxBytes / 110));
    const int lines = std::min({f.lines, std::max(1, maxLines), budgetLines});
    const std::string content = fileContent(f, lines);
    const int n = countLines(content);
    if (n < f.lines)
        c.input["limit"] = n; // a partial read, as the model asks for big files
    c.result = numbered(content, 1) + kReminder;
    c.toolUseResult = ojson{{"type", "text"},
                            {"file", ojson{{"filePath", abs}, {"content", content}, {"numLines", n}, {"startLine", 1}, {"totalLines", f.lines}}}};
    return c;
}

ToolCall grepCall(Rng &rng, const Project &p)
{
    ToolCall c;
    c.name = "Grep";
    const std::string sym = rng.pick(p.symbols);
    const bool content = rng.chance(0.5);
    c.input = ojson{{"pattern", sym}, {"path", p.cwd}, {"output_mode", content ? "content" : "files_with_matches"}};
    if (content)
        c.input["-n"] = true;
    const int hits = rng.range(0, 14);
    std::vector<std::string> files;
    std::string body;
    for (int i = 0; i < hits; ++i) {
        const SourceFile &f = rng.pick(p.files);
        if (content)
            body += p.cwd + "/" + f.path + ":" + std::to_string(rng.range(1, f.lines)) + ":    auto result = " + sym + "(input);\n";
        else if (std::find(files.begin(), files.end(), p.cwd + "/" + f.path) == files.end())
            files.push_back(p.cwd + "/" + f.path);
    }
    if (content) {
        c.result = hits ? body.substr(0, body.size() - 1) : "No matches found";
        c.toolUseResult = ojson{{"mode", "content"}, {"numFiles", 0}, {"filenames", ojson::array()}, {"content", c.result}, {"numLines", hits}};
    } else {
        c.result = files.empty() ? "No files found" : "Found " + std::to_string(files.size()) + " files\n";
        for (std::size_t i = 0; i < files.size(); ++i)
            c.result += files[i] + (i + 1 < files.size() ? "\n" : "");
        c.toolUseResult = ojson{{"mode", "files_with_matches"}, {"filenames", files}, {"numFiles", files.size()}};
    }
    return c;
}

ToolCall globCall(Rng &rng, const Project &p)
{
    ToolCall c;
    c.name = "Glob";
    const char *const patterns[] = {"**/*.cpp", "**/*.h", "src/**/*.py", "**/*.ts", "tests/**/*", "**/*.md"};
    c.input = ojson{{"pattern", rng.pick(patterns)}};
    std::vector<std::string> files;
    const int n = rng.range(0, 20);
    for (int i = 0; i < n; ++i)
        files.push_back(p.cwd + "/" + rng.pick(p.files).path);
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    if (files.empty())
        c.result = "No files found";
    for (std::size_t i = 0; i < files.size(); ++i)
        c.result += files[i] + (i + 1 < files.size() ? "\n" : "");
    c.toolUseResult = ojson{{"filenames", files}, {"durationMs", rng.range(2, 80)}, {"numFiles", files.size()}, {"truncated", false}};
    return c;
}

ToolCall bashCall(Rng &rng, const Project &p, bool fail)
{
    ToolCall c;
    c.name = "Bash";
    std::string out, err, cmd, desc;
    switch (rng.below(4)) {
    case 0: {
        cmd = "cmake --build build -j8 2>&1 | tail -40";
        desc = "Build the project";
        const int n = rng.range(4, 30);
        for (int i = 0; i < n; ++i)
            out += "[" + std::to_string(i + 1) + "/" + std::to_string(n) + "] Building CXX object CMakeFiles/app.dir/" + rng.pick(p.files).path + ".o\n";
        if (fail)
            err = p.cwd + "/" + rng.pick(p.files).path + ":" + std::to_string(rng.range(10, 400))
                  + ":17: error: no member named '" + rng.pick(p.symbols) + "' in 'app::Session'\n1 error generated.\nninja: build stopped: subcommand failed.";
        break;
    }
    case 1: {
        cmd = "ctest --test-dir build --output-on-failure";
        desc = "Run the test suite";
        const int n = rng.range(5, 40);
        out = "Test project " + p.cwd + "/build\n";
        for (int i = 0; i < n; ++i)
            out += "      Start " + std::to_string(i + 1) + ": " + rng.pick(p.symbols) + "\n" + std::to_string(i + 1) + "/" + std::to_string(n)
                   + " Test #" + std::to_string(i + 1) + ": " + rng.pick(p.symbols) + " ....   Passed    0." + std::to_string(rng.range(10, 99)) + " sec\n";
        if (fail)
            err = "FAIL: " + rng.pick(p.symbols) + " (tests/test_" + std::string(rng.pick(p.files).path.substr(0, 3)) + ".cpp:88)\n  expected: 3\n  actual:   4\n\n"
                  + std::to_string(n - 1) + "% tests passed, 1 tests failed out of " + std::to_string(n);
        else
            out += "\n100% tests passed, 0 tests failed out of " + std::to_string(n) + "\n";
        break;
    }
    case 2:
        cmd = "git status --short && git log --oneline -5";
        desc = "Show working tree status";
        for (int i = 0; i < 4; ++i)
            out += " M " + rng.pick(p.files).path + "\n";
        for (int i = 0; i < 5; ++i)
            out += base62(rng, 7) + " Fix " + rng.pick(p.symbols) + " edge case\n";
        if (fail)
            err = "fatal: not a git repository (or any of the parent directories): .git";
        break;
    default:
        cmd = "ls -la " + p.cwd + "/src";
        desc = "List source files";
        out = "total " + std::to_string(rng.range(40, 400)) + "\n";
        for (int i = 0; i < 8; ++i)
            out += "-rw-r--r--  1 dev dev " + std::to_string(rng.range(200, 90000)) + " Nov 21 10:" + std::to_string(10 + i) + " " + rng.pick(p.files).path + "\n";
        if (fail)
            err = "ls: cannot access '" + p.cwd + "/src': No such file or directory";
    }
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    c.input = ojson{{"command", cmd}, {"description", desc}};
    if (fail) {
        c.isError = true;
        c.result = "Exit code 1\n" + (out.empty() ? err : out + "\n" + err);
        c.toolUseResult = "Error: " + c.result;
    } else {
        c.result = out;
        c.toolUseResult = ojson{{"stdout", out}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}};
    }
    return c;
}

ToolCall editCall(Rng &rng, const Project &p, bool fail, std::size_t maxBytes, int maxLines)
{
    ToolCall c;
    c.name = "Edit";
    const SourceFile &f = rng.pick(p.files);
    const std::string abs = p.cwd + "/" + f.path;
    const std::string original = fileContent(f, std::min({f.lines, std::max(30, int(maxBytes / 90)), std::max(30, maxLines)}));
    const auto lines = splitLines(original);
    int at = rng.range(0, std::max(0, int(lines.size()) - 4));
    // Claude Code rejects an empty old_string on an existing file: anchor on a line with code.
    while (at + 1 < int(lines.size()) && lines[std::size_t(at)].size() < 8)
        ++at;
    const int span = std::min<int>(rng.range(1, 3), int(lines.size()) - at);
    std::string oldStr, newStr;
    std::vector<std::string> patch;
    for (int i = std::max(0, at - 3); i < at; ++i)
        patch.push_back(" " + lines[std::size_t(i)]);
    for (int i = at; i < at + span; ++i) {
        oldStr += lines[std::size_t(i)] + (i + 1 < at + span ? "\n" : "");
        patch.push_back("-" + lines[std::size_t(i)]);
    }
    newStr = oldStr + "\n    // " + rng.pick(p.symbols) + ": guard against reuse after move";
    for (const auto &l : splitLines(newStr))
        patch.push_back("+" + l);
    c.input = ojson{{"file_path", abs}, {"old_string", oldStr}, {"new_string", newStr}};
    if (fail) {
        c.isError = true;
        c.result = "<tool_use_error>String to replace not found in file.\nString: " + oldStr + "x</tool_use_error>";
        c.toolUseResult = "Error: String to replace not found in file.\nString: " + oldStr + "x";
        return c;
    }
    std::string snippet;
    for (int i = std::max(0, at - 4); i < std::min<int>(int(lines.size()), at + span + 4); ++i)
        snippet += lines[std::size_t(i)] + "\n";
    c.result = "The file " + abs + " has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n"
               // clang-format off
        + numbered(snippet, std::max(0, at - 4) + 1);
    c.toolUseResult = ojson{{"filePath", abs}, {"oldString", oldStr}, {"newString", newStr}, {"originalFile", original},
        {"structuredPatch", ojson::array({ojson{{"oldStart", std::max(0, at - 3) + 1}, {"oldLines", std::min(at, 3) + span},
            {"newStart", std::max(0, at - 3) + 1}, {"newLines", std::min(at, 3) + span + 1}, {"lines", patch}}})},
        {"userModified", false}, {"replaceAll", false}};
    // clang-format on
    return c;
}

ToolCall writeCall(Rng &rng, const Project &p)
{
    ToolCall c;
    c.name = "Write";
    const char *const langs[] = {"cpp", "py", "ts"};
    const std::string lang = rng.pick(langs);
    const std::string path = p.cwd + "/tests/test_" + rng.pick(p.symbols) + "." + (lang == "cpp" ? "cpp" : lang);
    const std::string content = codeSnippet(rng, p, lang, rng.range(20, 90));
    c.input = ojson{{"file_path", path}, {"content", content}};
    c.result = "File created successfully at: " + path;
    c.toolUseResult = ojson{{"type", "create"}, {"filePath", path}, {"content", content}, {"structuredPatch", ojson::array()}};
    return c;
}

ToolCall todoCall(Rng &rng, const Project &p)
{
    ToolCall c;
    c.name = "TodoWrite";
    ojson todos = ojson::array();
    const int n = rng.range(2, 6);
    const char *const states[] = {"completed", "in_progress", "pending"};
    for (int i = 0; i < n; ++i) {
        const std::string what = "Fix " + rng.pick(p.symbols);
        todos.push_back(ojson{{"content", what}, {"status", states[std::min(i, 2)]}, {"activeForm", "Fixing " + what.substr(4)}});
    }
    c.input = ojson{{"todos", todos}};
    c.result = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. "
               "Please proceed with the current tasks if applicable";
    c.toolUseResult = ojson{{"oldTodos", ojson::array()}, {"newTodos", todos}};
    return c;
}

} // namespace

ToolCall makeToolCall(Rng &rng, const Project &p, const Options &o, std::size_t maxBytes, bool exploring)
{
    const bool fail = rng.chance(o.errorShare);
    // The first round of a request mostly reads and searches; later ones edit and run.
    const std::size_t pickTool = exploring ? rng.below(52) : rng.below(100);
    if (pickTool < 32)
        return readCall(rng, p, fail, maxBytes, o.maxReadLines);
    if (pickTool < 44)
        return grepCall(rng, p);
    if (pickTool < 52)
        return globCall(rng, p);
    if (pickTool < 75)
        return bashCall(rng, p, fail);
    if (pickTool < 90)
        return editCall(rng, p, fail, maxBytes, o.maxReadLines);
    if (pickTool < 95)
        return writeCall(rng, p);
    return todoCall(rng, p);
}

} // namespace cl::gen::detail
