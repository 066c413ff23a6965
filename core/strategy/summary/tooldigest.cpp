// SPDX-License-Identifier: MIT
// The deterministic microcompact extractor (see strategy/summary/tooldigest.h for the line shapes).
#include "core/strategy/summary/tooldigest.h"
#include "core/strategy/summary/tooldigest_text.h"

#include "core/analysis/analysis.h"
#include "core/strategy/editor.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cctype>
#include <unordered_set>
#include <vector>

namespace cl::strategy::tooldigest {

using namespace text;

namespace {

enum class Kind {
    Read,
    Write,
    Edit,
    Delete,
    Shell,
    Grep,
    Glob,
    Web,
    Other
};

bool anyOf(std::string_view n, std::initializer_list<std::string_view> names)
{
    return std::find(names.begin(), names.end(), n) != names.end();
}

Kind kindOf(std::string_view name)
{
    switch (analysis::toolKind(name)) {
    case analysis::ToolKind::Read: return Kind::Read;
    case analysis::ToolKind::Write: return Kind::Write;
    case analysis::ToolKind::Edit: return Kind::Edit;
    case analysis::ToolKind::Delete: return Kind::Delete;
    case analysis::ToolKind::Shell: return Kind::Shell;
    case analysis::ToolKind::Other: break;
    }
    if (anyOf(name, {"Grep", "grep", "search_file_content", "grep_search", "ripgrep", "rg", "search"}))
        return Kind::Grep;
    if (anyOf(name, {"Glob", "glob", "find_files", "file_search", "list_directory", "LS", "ls"}))
        return Kind::Glob;
    if (anyOf(name, {"WebFetch", "web_fetch", "fetch", "WebSearch", "web_search", "google_web_search", "browser"}))
        return Kind::Web;
    return Kind::Other;
}

// ---- Read: definitions ------------------------------------------------------------------------------

std::string_view stripLineNumber(std::string_view l)
{
    // Claude Code Read output: "    12→code"; cat -n style: "    12\tcode".
    std::size_t i = 0;
    while (i < l.size() && l[i] == ' ')
        ++i;
    const std::size_t digits = i;
    while (i < l.size() && std::isdigit(static_cast<unsigned char>(l[i])))
        ++i;
    if (i > digits) {
        // "→" (E2 86 92) byte by byte: a memcmp call per line was a tenth of the Read digests.
        if (i + 3 <= l.size() && l[i] == '\xE2' && l[i + 1] == '\x86' && l[i + 2] == '\x92')
            return l.substr(i + 3);
        if (i < l.size() && l[i] == '\t')
            return l.substr(i + 1);
    }
    return l;
}

bool eatWord(std::string_view &s, std::string_view word)
{
    // The first byte before the comparison: a memcmp call per keyword tried was a large share of
    // the Read digests.
    if (s.size() > word.size() && (word.empty() || s[0] == word[0]) && s.substr(0, word.size()) == word
        && (s[word.size()] == ' ' || s[word.size()] == '\t')) {
        s.remove_prefix(word.size());
        s = s.substr(std::min(s.size(), s.find_first_not_of(" \t")));
        return true;
    }
    return false;
}

std::string_view identifier(std::string_view s)
{
    std::size_t n = 0;
    while (n < s.size() && (std::isalnum(static_cast<unsigned char>(s[n])) || s[n] == '_' || s[n] == '$'))
        ++n;
    return n && !std::isdigit(static_cast<unsigned char>(s[0])) ? s.substr(0, n) : std::string_view{};
}

struct Definitions {
    std::vector<std::string> names, exported;
    std::size_t types = 0, exportedTypes = 0;
    bool hasExports = false;
};

bool isDefinitionWord(std::string_view w)
{
    if (w.size() < 2 || w.size() > 9)
        return false;
    static constexpr std::string_view kWords[] = {"export", "default", "pub", "public", "static", "abstract",
                                                  "final", "async", "declare", "inline", "unsafe", "function", "def", "fn", "func", "class", "struct",
                                                  "trait", "interface", "type", "enum", "const", "let", "var"};
    for (const std::string_view k : kWords)
        if (w.size() == k.size() && w[0] == k[0] && w == k) // cheap tests first: no memcmp call per keyword
            return true;
    return false;
}

// Could the (trimmed) line start a definition? Every keyword scanDefinition eats is followed by a
// blank, except "pub(crate)"; a line whose first word is none of them defines nothing. This cheap
// test skips the ~20 keyword comparisons for almost every line of a long file.
bool mayDefine(std::string_view s)
{
    if (!s.empty() && s[0] == 'p' && s.substr(0, 10) == "pub(crate)")
        return true;
    const std::string_view w = s.substr(0, s.find_first_of(" \t"));
    if (w.size() == s.size())
        return false;
    return isDefinitionWord(w);
}

// First letters of the words mayDefine accepts ("pub(crate)" included): a line starting with any
// other character defines nothing, which a table lookup tells before trimming and comparing.
constexpr std::array<bool, 256> kDefinitionStart = [] {
    std::array<bool, 256> t{};
    for (const char c : std::string_view("acdefilpstuv"))
        t[static_cast<unsigned char>(c)] = true;
    return t;
}();

void scanDefinition(std::string_view line, Definitions &d)
{
    const std::string_view stripped = stripLineNumber(line);
    std::size_t k = 0; // trim()'s blanks
    while (k < stripped.size() && (stripped[k] == ' ' || stripped[k] == '\t' || stripped[k] == '\r' || stripped[k] == '\n'))
        ++k;
    if (k == stripped.size() || !kDefinitionStart[static_cast<unsigned char>(stripped[k])])
        return;
    // mayDefine's first-word test without trimming the line: the word ends at the first blank
    // within ten characters (a longer or blank-less word defines nothing, "pub(crate)" aside).
    const std::size_t end = std::min(stripped.size(), k + 10);
    std::size_t j = k;
    while (j < end && stripped[j] != ' ' && stripped[j] != '\t')
        ++j;
    if (j == end ? stripped[k] != 'p' || stripped.substr(k, 10) != "pub(crate)" : !isDefinitionWord(stripped.substr(k, j - k)))
        return;
    std::string_view s = trim(stripped);
    if (!mayDefine(s))
        return;
    bool exported = false;
    if (eatWord(s, "export")) {
        exported = d.hasExports = true;
        eatWord(s, "default");
    }
    eatWord(s, "pub");
    if (s.substr(0, 10) == "pub(crate)")
        s = trim(s.substr(10));
    for (const char *mod : {"public", "static", "abstract", "final", "async", "declare", "inline", "unsafe"})
        eatWord(s, mod);
    const bool fn = eatWord(s, "function") || eatWord(s, "def") || eatWord(s, "fn") || eatWord(s, "func");
    const bool cls = !fn && (eatWord(s, "class") || eatWord(s, "struct") || eatWord(s, "trait"));
    const bool type = !fn && !cls && (eatWord(s, "interface") || eatWord(s, "type") || eatWord(s, "enum"));
    const bool value = !fn && !cls && !type && exported && (eatWord(s, "const") || eatWord(s, "let") || eatWord(s, "var"));
    if (fn && !s.empty() && s[0] == '*') // function* generator
        s = trim(s.substr(1));
    const std::string_view name = identifier(s);
    if (name.empty())
        return;
    if (type) {
        ++d.types;
        d.exportedTypes += exported ? 1 : 0;
        return;
    }
    if (!fn && !cls && !value)
        return;
    std::string entry(name);
    if (fn)
        entry += "()";
    d.names.push_back(entry);
    if (exported)
        d.exported.push_back(std::move(entry));
}

std::string readKey(const Block &use, const Block &result)
{
    std::string out = toolLabel(use, result);
    const std::string path = firstPath(use);
    if (!path.empty())
        out += " " + path;
    if (result.isError)
        return out + " — failed: " + firstMeaningful(result.text);
    // One pass: forEveryLine calls once per line as lineCount() counts them (every '\n', plus a
    // last line without one).
    Definitions d;
    std::size_t lines = 0;
    forEveryLine(result.text, [&](std::string_view l) {
        ++lines;
        scanDefinition(l, d);
    });
    out += " — " + std::to_string(lines) + " lines";
    if (const std::string lang = languageForPath(path); !lang.empty())
        out += " " + lang;
    const auto &names = d.hasExports ? d.exported : d.names;
    const std::size_t types = d.hasExports ? d.exportedTypes : d.types;
    if (!names.empty()) {
        out += d.hasExports ? ", exports " : ", defines ";
        for (std::size_t i = 0; i < names.size() && i < 3; ++i)
            out += (i ? ", " : "") + names[i];
        if (names.size() > 3)
            out += " + " + std::to_string(names.size() - 3) + " more";
    }
    if (types)
        out += ", " + std::to_string(types) + (types == 1 ? " type definition" : " type definitions");
    return out;
}

// ---- Search, listing, shell, edits, web --------------------------------------------------------------

bool startsWith(std::string_view s, std::string_view p)
{
    return s.substr(0, p.size()) == p;
}

std::string grepKey(const Block &use, const Block &result)
{
    std::string out = toolLabel(use, result);
    if (const std::string pattern = inputString(use, {"pattern", "query", "regex"}); !pattern.empty())
        out.append(" ").append(excerpt(pattern)); // (" " + excerpt: GCC 12 -O2 warns falsely)
    if (result.isError)
        return out + " — failed: " + firstMeaningful(result.text);
    const std::string_view text = trim(result.text);
    if (text.empty() || startsWith(text, "No matches") || startsWith(text, "No files found"))
        return out + " — no matches";
    // "path:line:text" / "path:text" / "path:count" are matches; bare paths are files with matches.
    std::size_t matches = 0, bare = 0;
    std::unordered_set<std::string_view> files;
    forLines(text, [&](std::string_view l) {
        l = trim(l);
        if (l.empty() || l == "--" || startsWith(l, "Found "))
            return true;
        const auto colon = l.find(':');
        // A Windows drive letter ("C:\") is part of the path, not a separator.
        if (colon != std::string_view::npos && colon > 1 && l.substr(0, colon).find(' ') == std::string_view::npos) {
            ++matches;
            files.insert(l.substr(0, colon));
        } else {
            ++bare;
        }
        return true;
    });
    if (matches == 0)
        return out + " — " + std::to_string(bare) + (bare == 1 ? " file with matches" : " files with matches");
    return out + " — " + std::to_string(matches) + (matches == 1 ? " match in " : " matches in ")
           + std::to_string(files.size()) + (files.size() == 1 ? " file" : " files");
}

std::string globKey(const Block &use, const Block &result)
{
    std::string out = toolLabel(use, result);
    if (std::string pattern = inputString(use, {"pattern", "glob", "path", "dir_path"}); !pattern.empty())
        out.append(" ").append(excerpt(pattern)); // (" " + excerpt: GCC 12 -O2 warns falsely)
    if (result.isError)
        return out + " — failed: " + firstMeaningful(result.text);
    std::size_t files = 0;
    forLines(result.text, [&](std::string_view l) {
        l = trim(l);
        // "(Results are truncated ...)" notes and "No files found" are not files.
        if (!l.empty() && l[0] != '(' && !startsWith(l, "No files found") && !startsWith(l, "Found "))
            ++files;
        return true;
    });
    return out + " — " + std::to_string(files) + (files == 1 ? " file" : " files");
}

// "Exit code 1", "Exit code: 1", "exit status 2", "exited with code 3", "\"exit_code\":4".
bool findExit(std::string_view text, long &code)
{
    for (const std::string_view key : {"Exit code", "exit code", "exit status", "exited with code", "\"exit_code\""}) {
        const auto at = text.find(key);
        if (at == std::string_view::npos)
            continue;
        std::size_t i = at + key.size();
        while (i < text.size() && (text[i] == ':' || text[i] == ' '))
            ++i;
        const bool negative = i < text.size() && text[i] == '-';
        std::size_t j = i + (negative ? 1 : 0);
        if (j >= text.size() || !std::isdigit(static_cast<unsigned char>(text[j])))
            continue;
        long v = 0;
        for (; j < text.size() && std::isdigit(static_cast<unsigned char>(text[j])) && v < 100000; ++j)
            v = v * 10 + (text[j] - '0');
        code = negative ? -v : v;
        return true;
    }
    return false;
}

std::string shellKey(const Block &use, const Block &result)
{
    std::string out = toolLabel(use, result);
    if (const std::string command = analysis::shellCommand(use); !command.empty())
        out.append(" ").append(excerpt(command)); // (" " + excerpt: GCC 12 -O2 warns falsely)
    long code = 0;
    // The status sits at the start (Claude Code "Exit code 1", Codex "Exit code: 0") or in the metadata.
    const std::string_view head = std::string_view(result.text).substr(0, 400);
    if (findExit(head, code))
        out += " — exit " + std::to_string(code);
    else if (result.isError)
        out += " — failed: " + firstMeaningful(result.text);
    else
        out += " — ok";
    const std::size_t lines = lineCount(trim(result.text));
    out += ", " + std::to_string(lines) + (lines == 1 ? " line" : " lines");
    if (const std::string last = lastMeaningful(result.text, "Exit code"); !last.empty())
        out += ", last: " + last;
    return out;
}

std::string editKey(const Block &use, const Block &result, Kind kind)
{
    std::string out = toolLabel(use, result);
    if (const std::string path = firstPath(use); !path.empty())
        out += " " + path;
    if (result.isError)
        return out + " — failed: " + firstMeaningful(result.text);
    if (kind == Kind::Delete)
        return out + " — deleted";
    const auto [added, removed] = lineDelta(use);
    if (kind == Kind::Write)
        return out + " — " + std::to_string(added) + (added == 1 ? " line written" : " lines written");
    return out + " — +" + std::to_string(added) + "/−" + std::to_string(removed) + " lines";
}

std::string webTitle(std::string_view text)
{
    std::string title;
    forLines(text, [&](std::string_view l) {
        const std::string_view t = trim(l);
        if (startsWith(t, "# ") || startsWith(t, "Title:")) {
            title = excerpt(trim(t.substr(t[0] == '#' ? 2 : 6)));
            return false;
        }
        return true;
    });
    if (title.empty()) {
        const auto open = text.find("<title>");
        const auto close = open == std::string_view::npos ? open : text.find("</title>", open);
        if (close != std::string_view::npos)
            title = excerpt(trim(text.substr(open + 7, close - open - 7)));
    }
    return title.empty() ? firstMeaningful(text) : title;
}

std::string webKey(const Block &use, const Block &result)
{
    std::string out = toolLabel(use, result);
    if (const std::string url = inputString(use, {"url", "query", "prompt"}); !url.empty())
        out.append(" ").append(excerpt(url)); // (" " + excerpt: GCC 12 -O2 warns falsely)
    if (result.isError)
        return out + " — failed: " + firstMeaningful(result.text);
    out += " — ";
    if (const std::string title = webTitle(result.text); !title.empty())
        out += "title: " + title + ", ";
    const std::size_t chars = utf8Length(result.text);
    return out + std::to_string(chars) + " chars";
}

std::string genericKey(const Block &use, const Block &result)
{
    std::string out = toolLabel(use, result) + " — ";
    if (result.isError)
        out += "failed: ";
    const std::string first = firstMeaningful(result.text);
    out += first.empty() ? std::string("(no output)") : first;
    const std::size_t lines = lineCount(trim(result.text));
    return out + ", " + std::to_string(lines) + (lines == 1 ? " line" : " lines");
}

} // namespace

std::string keyOutput(const Block &toolUse, const Block &toolResult)
{
    switch (kindOf(toolUse.toolName.empty() ? toolResult.toolName : toolUse.toolName)) {
    case Kind::Read: return readKey(toolUse, toolResult);
    case Kind::Write: return editKey(toolUse, toolResult, Kind::Write);
    case Kind::Edit: return editKey(toolUse, toolResult, Kind::Edit);
    case Kind::Delete: return editKey(toolUse, toolResult, Kind::Delete);
    case Kind::Shell: return shellKey(toolUse, toolResult);
    case Kind::Grep: return grepKey(toolUse, toolResult);
    case Kind::Glob: return globKey(toolUse, toolResult);
    case Kind::Web: return webKey(toolUse, toolResult);
    case Kind::Other: break;
    }
    return genericKey(toolUse, toolResult);
}

std::string compactLine(const Block &toolUse, const Block &toolResult)
{
    return "[Compacted: " + keyOutput(toolUse, toolResult) + "]";
}

bool isCompacted(std::string_view text)
{
    const auto b = text.find_first_not_of(" \t\r\n");
    return b != std::string_view::npos && text.substr(b, 11) == "[Compacted:";
}

std::string languageForPath(std::string_view path)
{
    const auto slash = path.find_last_of("/\\");
    const std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
    const auto dot = file.find_last_of('.');
    if (dot == std::string_view::npos || dot + 1 >= file.size())
        return file == "Makefile" ? "Makefile" : file == "Dockerfile" ? "Dockerfile"
                                                                      : std::string();
    std::string ext(file.substr(dot + 1));
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    static const std::array<std::pair<std::string_view, std::string_view>, 40> table{{
        {"ts", "TypeScript"},
        {"tsx", "TypeScript"},
        {"mts", "TypeScript"},
        {"js", "JavaScript"},
        {"jsx", "JavaScript"},
        {"mjs", "JavaScript"},
        {"cjs", "JavaScript"},
        {"py", "Python"},
        {"rs", "Rust"},
        {"go", "Go"},
        {"c", "C"},
        {"h", "C/C++ header"},
        {"hpp", "C++ header"},
        {"cpp", "C++"},
        {"cc", "C++"},
        {"cxx", "C++"},
        {"java", "Java"},
        {"kt", "Kotlin"},
        {"rb", "Ruby"},
        {"php", "PHP"},
        {"cs", "C#"},
        {"swift", "Swift"},
        {"sh", "Shell"},
        {"bash", "Shell"},
        {"md", "Markdown"},
        {"json", "JSON"},
        {"yaml", "YAML"},
        {"yml", "YAML"},
        {"toml", "TOML"},
        {"html", "HTML"},
        {"css", "CSS"},
        {"scss", "SCSS"},
        {"sql", "SQL"},
        {"txt", "text"},
        {"xml", "XML"},
        {"vue", "Vue"},
        {"lua", "Lua"},
        {"dart", "Dart"},
        {"scala", "Scala"},
        {"cmake", "CMake"},
    }};
    for (const auto &[e, name] : table)
        if (e == ext)
            return std::string(name);
    return {};
}

std::pair<std::size_t, std::size_t> lineDelta(const Block &use)
{
    const auto &in = use.input;
    auto lines = [](const nlohmann::json &v) -> std::size_t {
        return v.is_string() ? lineCount(v.get_ref<const std::string &>()) : 0;
    };
    auto field = [&](const nlohmann::json &obj, std::initializer_list<const char *> keys) -> const nlohmann::json * {
        if (!obj.is_object())
            return nullptr;
        for (const char *k : keys)
            if (const auto it = obj.find(k); it != obj.end())
                return &*it;
        return nullptr;
    };
    // Written content.
    if (const auto *content = field(in, {"content", "file_text", "contents"}); content && content->is_string())
        return {lines(*content), 0};
    // A patch (apply_patch's input is the patch text, or {input|patch: text}).
    const nlohmann::json *patch = in.is_string() ? &in : field(in, {"input", "patch"});
    if (patch && patch->is_string()) {
        std::size_t added = 0, removed = 0;
        forLines(patch->get_ref<const std::string &>(), [&](std::string_view l) {
            if (!l.empty() && l[0] == '+' && !startsWith(l, "+++"))
                ++added;
            else if (!l.empty() && l[0] == '-' && !startsWith(l, "---"))
                ++removed;
            return true;
        });
        return {added, removed};
    }
    // old/new strings, one edit or a list of them (MultiEdit).
    std::size_t added = 0, removed = 0;
    auto one = [&](const nlohmann::json &e) {
        if (const auto *o = field(e, {"old_string", "old_str", "old_source"}))
            removed += lines(*o);
        if (const auto *n = field(e, {"new_string", "new_str", "new_source"}))
            added += lines(*n);
    };
    one(in);
    if (const auto *edits = field(in, {"edits"}); edits && edits->is_array())
        for (const auto &e : *edits)
            one(e);
    return {added, removed};
}

} // namespace cl::strategy::tooldigest
