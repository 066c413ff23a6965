// SPDX-License-Identifier: MIT
// Text of the generated sessions: the project, its source files, user requests, assistant prose.
#include "core/generator/internal.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

namespace cl::gen::detail {

namespace {

const char *const kNouns[] = {"parser", "cache", "session", "buffer", "token", "index", "request", "config",
                              "router", "worker", "queue", "schema", "record", "snapshot", "handler", "timeline", "budget", "window"};
const char *const kVerbs[] = {"load", "parse", "flush", "merge", "split", "resolve", "validate", "encode",
                              "decode", "estimate", "render", "compact", "collect", "apply", "rebuild", "scan"};
const char *const kTypes[] = {"std::string", "int", "bool", "std::size_t", "double", "std::vector<Record>",
                              "std::optional<int>", "Status"};
const char *const kProjects[] = {"acme-billing", "tidewater", "lumen-api", "orbit-cli", "paperjam", "kestrel"};
const char *const kBranches[] = {"main", "feature/streaming-parser", "fix/cache-eviction", "dev", "refactor/io"};
const char *const kDirs[] = {"src", "src/core", "src/net", "lib", "tests", "tools"};

std::string camel(const std::string &a, const std::string &b)
{
    std::string s = a + b;
    if (a.size() < s.size() && s[a.size()] >= 'a' && s[a.size()] <= 'z')
        s[a.size()] = char(s[a.size()] - 32);
    return s;
}

std::string fnName(Rng &rng) { return camel(rng.pick(kVerbs), rng.pick(kNouns)); }

std::string className(Rng &rng)
{
    std::string n = rng.pick(kNouns);
    n[0] = char(n[0] - 32);
    std::string m = rng.pick(kNouns);
    m[0] = char(m[0] - 32);
    return n + m;
}

// One function body in the file's language; about `lines` lines.
void appendFunction(Rng &rng, const std::string &lang, std::string &out, int &lines)
{
    const std::string fn = fnName(rng);
    const std::string noun = rng.pick(kNouns);
    const int body = rng.range(4, 14);
    if (lang == "py") {
        out += "def " + fn + "(self, " + noun + ", *, strict=False):\n";
        out += "    \"\"\"" + camel("Return the ", noun) + " after " + rng.pick(kVerbs) + "ing it.\"\"\"\n";
        for (int i = 0; i < body; ++i) {
            switch (rng.below(5)) {
            case 0:
                out += "    if " + noun + " is None:\n        raise ValueError(\"missing " + noun + "\")\n";
                ++lines;
                break;
            case 1:
                out += "    for item in " + noun + "." + rng.pick(kNouns) + "s:\n        total += len(item)\n";
                ++lines;
                break;
            case 2: out += "    result = self._" + fnName(rng) + "(" + noun + ", limit=" + std::to_string(rng.range(2, 4096)) + ")\n"; break;
            case 3: out += "    logger.debug(\"%s: %d entries\", " + noun + ".name, len(" + noun + "))\n"; break;
            default: out += "    # " + std::string(rng.pick(kVerbs)) + " before the " + rng.pick(kNouns) + " is reused\n"; break;
            }
            ++lines;
        }
        out += "    return result\n\n";
        lines += 4;
    } else if (lang == "ts") {
        out += "export async function " + fn + "(" + noun + ": " + className(rng) + ", opts: Options = {}): Promise<number> {\n";
        for (int i = 0; i < body; ++i) {
            switch (rng.below(5)) {
            case 0:
                out += "  if (!" + noun + ") {\n    throw new Error(`missing " + noun + "`);\n  }\n";
                lines += 2;
                break;
            case 1: out += "  const " + std::string(rng.pick(kNouns)) + "s = await fetchJson(`/api/" + noun + "/${opts.id ?? 0}`);\n"; break;
            case 2: out += "  for (const entry of " + noun + ".entries()) total += entry.size;\n"; break;
            case 3: out += "  console.debug('" + fn + "', { size: " + noun + ".length });\n"; break;
            default: out += "  // " + std::string(rng.pick(kVerbs)) + " the " + rng.pick(kNouns) + " once per call\n"; break;
            }
            ++lines;
        }
        out += "  return total;\n}\n\n";
        lines += 4;
    } else {
        out += std::string(rng.pick(kTypes)) + " " + className(rng) + "::" + fn + "(const " + className(rng) + " &" + noun + ")\n{\n";
        for (int i = 0; i < body; ++i) {
            switch (rng.below(6)) {
            case 0:
                out += "    if (" + noun + ".empty())\n        return {};\n";
                ++lines;
                break;
            case 1:
                out += "    for (const auto &item : " + noun + "." + rng.pick(kNouns) + "s())\n        total += item.size();\n";
                ++lines;
                break;
            case 2: out += "    auto " + std::string(rng.pick(kNouns)) + " = m_" + rng.pick(kNouns) + "." + fnName(rng) + "(" + std::to_string(rng.range(1, 512)) + ");\n"; break;
            case 3: out += "    std::lock_guard<std::mutex> lock(m_mutex);\n"; break;
            case 4: out += "    assert(" + noun + ".size() <= kMax" + className(rng) + ");\n"; break;
            default: out += "    // " + std::string(rng.pick(kVerbs)) + " first: the " + rng.pick(kNouns) + " may be shared\n"; break;
            }
            ++lines;
        }
        out += "    return total;\n}\n\n";
        lines += 4;
    }
}

std::string fileHeader(const SourceFile &f)
{
    if (f.lang == "py")
        return "# SPDX-License-Identifier: MIT\n\"\"\"" + f.path + "\"\"\"\nimport logging\nfrom dataclasses import dataclass\n\nlogger = logging.getLogger(__name__)\n\n";
    if (f.lang == "ts")
        return "// SPDX-License-Identifier: MIT\nimport { fetchJson, Options } from './util';\n\n";
    if (f.lang == "md")
        return "# " + f.path + "\n\n";
    return "// SPDX-License-Identifier: MIT\n#include \"" + f.path.substr(f.path.rfind('/') + 1, f.path.rfind('.') - f.path.rfind('/') - 1) + ".h\"\n\n#include <mutex>\n#include <string>\n#include <vector>\n\nnamespace app {\n\n";
}

} // namespace

std::string uuid(Rng &rng)
{
    static const char hex[] = "0123456789abcdef";
    const std::uint64_t a = rng.next(), b = rng.next();
    char s[37];
    int k = 0;
    for (int i = 0; i < 32; ++i) {
        if (i == 8 || i == 12 || i == 16 || i == 20)
            s[k++] = '-';
        const std::uint64_t w = i < 16 ? a : b;
        int nib = int((w >> ((i % 16) * 4)) & 0xF);
        if (i == 12)
            nib = 4; // version 4
        if (i == 16)
            nib = 8 | (nib & 3); // variant
        s[k++] = hex[nib];
    }
    return std::string(s, 36);
}

std::string base62(Rng &rng, int n)
{
    static const char chars[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    std::string s;
    s.reserve(std::size_t(n));
    for (int i = 0; i < n; ++i)
        s += chars[rng.below(62)];
    return s;
}

Project makeProject(Rng &rng)
{
    Project p;
    p.name = rng.pick(kProjects);
    p.cwd = "/home/dev/work/" + p.name;
    p.branch = rng.pick(kBranches);
    const char *const langs[] = {"cpp", "cpp", "py", "ts"};
    const int nFiles = rng.range(18, 30);
    for (int i = 0; i < nFiles; ++i) {
        SourceFile f;
        f.lang = rng.pick(langs);
        const std::string ext = f.lang == "cpp" ? (rng.chance(0.3) ? ".h" : ".cpp") : "." + f.lang;
        f.path = std::string(rng.pick(kDirs)) + "/" + rng.pick(kNouns) + "_" + rng.pick(kNouns) + ext;
        f.seed = rng.next();
        f.lines = rng.chance(0.2) ? rng.range(900, 2400) : rng.range(60, 600);
        p.files.push_back(std::move(f));
    }
    for (const char *doc : {"README.md", "docs/ARCHITECTURE.md"}) {
        SourceFile f;
        f.path = doc;
        f.lang = "md";
        f.seed = rng.next();
        f.lines = rng.range(60, 240);
        p.files.push_back(std::move(f));
    }
    for (int i = 0; i < 24; ++i)
        p.symbols.push_back(rng.chance(0.5) ? fnName(rng) : className(rng));
    return p;
}

namespace {

std::string buildContent(const SourceFile &f, int want)
{
    Rng rng(f.seed);
    std::string out = fileHeader(f);
    int lines = 0;
    for (char c : out)
        lines += c == '\n';
    if (f.lang == "md") {
        while (lines < want) {
            out += "## " + camel(rng.pick(kVerbs), rng.pick(kNouns)) + "\n\nThe " + rng.pick(kNouns) + " is "
                   + rng.pick(kVerbs) + "ed before each " + rng.pick(kNouns) + "; see `" + fnName(rng) + "`.\n\n";
            lines += 4;
        }
        return out;
    }
    while (lines < want)
        appendFunction(rng, f.lang, out, lines);
    // Trim to the requested number of lines so Read results match their numLines.
    std::size_t pos = 0;
    for (int i = 0; i < want; ++i) {
        const std::size_t nl = out.find('\n', pos);
        if (nl == std::string::npos) {
            pos = out.size();
            break;
        }
        pos = nl + 1;
    }
    out.resize(pos);
    return out;
}

} // namespace

std::string fileContent(const SourceFile &f, int maxLines)
{
    // Files are re-read often; build each once (they are small next to the session).
    if (f.content.empty())
        f.content = buildContent(f, f.lines);
    std::size_t pos = 0;
    for (int i = 0; i < maxLines; ++i) {
        const std::size_t nl = f.content.find('\n', pos);
        if (nl == std::string::npos)
            return f.content;
        pos = nl + 1;
    }
    return f.content.substr(0, pos);
}

std::string numbered(std::string_view content, int firstLine)
{
    std::string out;
    out.reserve(content.size() + content.size() / 4);
    int n = firstLine;
    std::size_t pos = 0;
    char num[16];
    while (pos < content.size()) {
        std::size_t end = content.find('\n', pos);
        if (end == std::string_view::npos)
            end = content.size();
        std::snprintf(num, sizeof num, "%6d", n++);
        out += num;
        out += "\xE2\x86\x92"; // →
        out.append(content.substr(pos, end - pos));
        out += '\n';
        pos = end + 1;
    }
    return out;
}

std::string codeSnippet(Rng &rng, const Project &, const std::string &lang, int lines)
{
    std::string out;
    int n = 0;
    while (n < lines)
        appendFunction(rng, lang, out, n);
    return out;
}

std::string userPrompt(Rng &rng, const Project &p, bool chinese)
{
    const SourceFile &f = rng.pick(p.files);
    const std::string &sym = rng.pick(p.symbols);
    if (chinese) {
        const std::string zh[] = {
            "请帮我看一下 " + f.path + " 里的 " + sym + "，为什么在大文件上这么慢？",
            "新问题：" + sym + " 在并发调用时偶尔崩溃，能帮我找到原因并修复吗？",
            "把 " + f.path + " 重构一下，拆成更小的函数，并补上单元测试。",
            "继续。顺便把 README 里的构建说明更新到最新的命令。",
            "换个话题：我们的 CI 在 " + p.branch + " 分支上失败了，看看日志是什么问题。",
            "能解释一下 " + sym + " 的缓存失效逻辑吗？我觉得有边界条件没处理。",
        };
        return rng.pick(zh);
    }
    const std::string en[] = {
        "Can you look at " + f.path + "? " + sym + " seems to be slow on large inputs and I'd like to know why.",
        "The tests in tests/ are failing after my last change to " + sym + ". Please find out why and fix it.",
        "Refactor " + f.path + " so that " + sym + " no longer holds the lock while it does I/O.",
        "Add a --verbose flag to the CLI that prints each " + std::string(rng.pick(kNouns)) + " as it is processed.",
        "New question: how does the " + std::string(rng.pick(kNouns)) + " cache decide what to evict? Point me to the code.",
        "Please write unit tests for " + sym + ", including the empty input and the error paths.",
        "Moving on: update the README with the current build steps and the new configuration options.",
        "There's a crash report from production mentioning " + sym + " with a null " + rng.pick(kNouns) + ". Investigate.",
        "Run the full test suite and summarise what fails.",
        "ok, continue",
    };
    return rng.pick(en);
}

std::string shortIntent(Rng &rng, const Project &p)
{
    const std::string s[] = {
        "Let me look at how " + rng.pick(p.symbols) + " is implemented first.",
        "I'll search for the call sites before changing anything.",
        "Let me run the tests to see the current failures.",
        "Now I'll update " + rng.pick(p.files).path + " accordingly.",
        "I need to check the build output before going further.",
        "Let me read the related files in parallel.",
    };
    return rng.pick(s);
}

std::string thinkingText(Rng &rng, const Project &p)
{
    std::string out = "The user wants me to deal with " + rng.pick(p.symbols) + ". ";
    const int n = rng.range(2, 7);
    for (int i = 0; i < n; ++i) {
        const std::string s[] = {
            "The " + std::string(rng.pick(kNouns)) + " is created in " + rng.pick(p.files).path + ", so I should check how it is passed around. ",
            "If I change the signature, every caller has to be updated; a grep will tell me how many there are. ",
            "The failing assertion suggests the " + std::string(rng.pick(kNouns)) + " is reused after it was moved from. ",
            "I should not touch the public API unless it is necessary. ",
            "Running the tests first gives a baseline. ",
            "Holding the mutex while calling " + rng.pick(p.symbols) + " could deadlock when the callback re-enters. ",
        };
        out += rng.pick(s);
    }
    return out;
}

std::string answer(Rng &rng, const Project &p)
{
    std::string out;
    const int paragraphs = rng.range(1, 4);
    for (int i = 0; i < paragraphs; ++i) {
        const std::string s[] = {
            "I found the cause: `" + rng.pick(p.symbols) + "` re-reads the whole " + rng.pick(kNouns) + " on every call, which makes the loop quadratic.",
            "The change keeps the public interface intact; only `" + rng.pick(p.files).path + "` and its tests were touched.",
            "All tests pass now (" + std::to_string(rng.range(40, 400)) + " tests, 0 failures).",
            "There is one remaining edge case: an empty " + std::string(rng.pick(kNouns)) + " still returns an error instead of an empty result. I left it as is because the callers rely on it.",
            "The " + std::string(rng.pick(kNouns)) + " is now " + rng.pick(kVerbs) + "ed once and cached, guarded by the existing mutex.",
        };
        out += rng.pick(s);
        out += "\n\n";
    }
    if (rng.chance(0.6)) {
        const char *const langs[] = {"cpp", "py", "ts"};
        const std::string lang = rng.pick(langs);
        out += "```" + std::string(lang == "cpp" ? "cpp" : lang == "py" ? "python"
                                                                        : "typescript")
               + "\n";
        out += codeSnippet(rng, p, lang, rng.range(6, 24));
        out += "```\n\n";
    }
    if (rng.chance(0.4)) {
        out += "Summary of the changes:\n";
        const int items = rng.range(2, 5);
        for (int i = 0; i < items; ++i)
            out += "- `" + rng.pick(p.files).path + "`: " + rng.pick(kVerbs) + " the " + rng.pick(kNouns) + " earlier\n";
        out += '\n';
    }
    if (rng.chance(0.3)) {
        const char *const urls[] = {"https://en.cppreference.com/w/cpp/thread/mutex",
                                    "https://docs.python.org/3/library/asyncio-task.html", "https://nodejs.org/api/stream.html",
                                    "https://github.com/nlohmann/json#readme", "https://doc.qt.io/qt-6/qthread.html"};
        out += "See " + std::string(rng.pick(urls)) + " for the details of the behaviour relied on here.\n";
    }
    while (!out.empty() && out.back() == '\n')
        out.pop_back();
    return out;
}

std::string summaryText(Rng &rng, const Project &p)
{
    std::string out = "This session is being continued from a previous conversation that ran out of context. "
                      "The conversation is summarized below:\nAnalysis:\nThe user is working on "
                      + p.name
                      + " (branch " + p.branch + ").\n\nSummary:\n1. Primary Request and Intent:\n   The user asked to fix and test "
                      + rng.pick(p.symbols) + ".\n2. Key Technical Concepts:\n";
    for (int i = 0; i < 4; ++i)
        out += "   - " + rng.pick(p.symbols) + "\n";
    out += "3. Files and Code Sections:\n";
    for (int i = 0; i < 5; ++i)
        out += "   - " + p.cwd + "/" + rng.pick(p.files).path + "\n";
    out += "4. Errors and fixes:\n   - A failing assertion in " + rng.pick(p.symbols) + " was fixed by caching the "
           + rng.pick(kNouns) + ".\n5. Pending Tasks:\n   - Update the README.\n6. Current Work:\n   Running the test suite.\n"
                                "Please continue the conversation from where we left it off without asking the user any further questions. "
                                "Continue with the last task that you were asked to work on.";
    return out;
}

} // namespace cl::gen::detail
