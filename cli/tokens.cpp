// SPDX-License-Identifier: MIT
// `tokens`: exact o200k_base / cl100k_base count of a file or stdin; with --report on a transcript,
// the per-family context count (tokens/counts.h) and the estimator error table by content type.
#include "cli/cli.h"

#include "core/tokens/bpe.h"
#include "cli/common.h"
#include "core/tokens/counts.h"

#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <sys/stat.h>

namespace cl::cli {

namespace {

constexpr const char *kHelp =
    "Usage: contextlens-cli tokens FILE|- [--encoding o200k_base|cl100k_base] [--report] [--vocab-dir DIR] [--json]\n"
    "Counts the tokens of FILE (or standard input for '-') exactly, as tiktoken's encode_ordinary.\n"
    "--report: when FILE is a transcript, also its context size per model family (exact for OpenAI\n"
    "models, measured usage + learned factor for Claude / Gemini) and the seed estimator's and chars/4's\n"
    "error against exact o200k counts by content type. A plain text file is just counted.\n"
    "--vocab-dir: read the .tiktoken files from DIR (default: CONTEXTLENS_VOCAB_DIR, next to the\n"
    "executable, or the build tree; scripts/fetch-vocab.sh DIR installs them).\n"
    "Exit: 0 counted, 1 transcript loaded with diagnostics (--report), 2 failure (unreadable file,\n"
    "missing vocabulary, bad usage).\n";

double round3(double v) { return std::round(v * 1000.0) / 1000.0; }
double round1(double v) { return std::round(v * 10.0) / 10.0; }

std::shared_ptr<const bpe::Tokenizer> loadTokenizer(bpe::Encoding e, const std::optional<std::string> &dir, std::string &error)
{
    return bpe::loadVocabulary(e, dir.value_or(std::string()), error);
}

bool readInput(const std::string &path, std::string &bytes, std::string &error)
{
    if (path == "-") {
        bytes.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        return true;
    }
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0) {
        error = path + ": no such file";
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        error = path + ": is a directory";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open";
        return false;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    bytes = std::move(ss).str();
    return true;
}

ojson tableJson(const tokencount::ErrorTable &table)
{
    auto row = [](const tokencount::ReportRow &r) {
        // clang-format off
        return ojson{{"samples", r.samples}, {"exact", r.exact}, {"estimator", r.estimator},
            {"estimatorErrorPercent", round1(r.estimatorErrorPercent())}, {"charsDiv4", r.charsDiv4},
            {"charsDiv4ErrorPercent", round1(r.charsErrorPercent())}};
        // clang-format on
    };
    ojson rows = ojson::array();
    for (const auto &r : table.rows) {
        ojson j{{"type", std::string(tokencount::contentTypeName(r.type))}};
        j.update(row(r));
        rows.push_back(j);
    }
    ojson total{{"type", "total"}};
    total.update(row(table.total));
    return ojson{{"rows", rows}, {"total", total}};
}

ojson countJson(const Transcript &t, const tokencount::TranscriptCount &c)
{
    ojson j;
    j["format"] = std::string(formatName(t.format));
    j["family"] = std::string(tokencount::familyName(c.family));
    j["encoding"] = c.encoding;
    j["messages"] = t.messages.size();
    j["tokens"] = c.total.tokens;
    j["source"] = std::string(tokencount::sourceName(c.total.source));
    j["how"] = c.total.how;
    j["measuredPart"] = c.measuredPart;
    j["estimatedPart"] = c.estimatedPart;
    if (c.family == tokencount::Family::Claude || c.family == tokencount::Family::Gemini) {
        j["overhead"] = c.overhead;
        j["factor"] = round3(c.factor);
        j["rawFactor"] = round3(c.rawFactor);
        j["factorPairs"] = c.factorPairs;
        j["lastUsageMessage"] = c.lastUsageMessage;
    }
    if (!c.note.empty())
        j["note"] = c.note;
    std::size_t bySource[3] = {0, 0, 0};
    for (std::size_t i = 0; i < c.messages.size(); ++i)
        if (t.messages[i].isConversation())
            ++bySource[c.messages[i].source];
    j["messagesBySource"] = ojson{{"exact", bySource[0]}, {"measured", bySource[1]}, {"estimated", bySource[2]}};
    return j;
}

} // namespace

int tokens(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const Args a = parseArgs(args, {{"--encoding", "-e", true}, {"--report", "", false}, {"--vocab-dir", "", true}});
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += kHelp;
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail("tokens: " + a.error);
    if (a.positional.size() != 1)
        return o.fail("tokens: expected one FILE or '-' (usage: contextlens-cli tokens FILE|- [--encoding o200k_base|cl100k_base] "
                      "[--report] [--json])");
    bpe::Encoding enc = bpe::Encoding::O200kBase;
    if (const auto name = a.value("--encoding")) {
        if (*name == "cl100k_base")
            enc = bpe::Encoding::Cl100kBase;
        else if (*name != "o200k_base")
            return o.fail("tokens: unknown encoding '" + *name + "' (one of: o200k_base, cl100k_base)");
    }
    const std::string &path = a.positional[0];
    std::string bytes, error;
    if (!readInput(path, bytes, error))
        return o.fail("tokens: " + error);
    const auto vocabDir = a.value("--vocab-dir");
    const auto tok = loadTokenizer(enc, vocabDir, error);
    if (!tok)
        return o.fail("tokens: " + error);

    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t n = tok->countParallel(bytes, 2);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    ojson j;
    j["encoding"] = std::string(bpe::encodingName(enc));
    j["bytes"] = bytes.size();
    j["tokens"] = n;
    j["seconds"] = std::round(seconds * 1e6) / 1e6;
    std::string text = std::to_string(n) + "\n";
    int code = Exit::Success;

    if (a.has("--report")) {
        LoadResult r = path == "-" ? loadBytes(bytes, "-") : loadFile(path);
        if (!r.ok() || r.transcript->format == Format::Unknown) {
            j["transcript"] = nullptr;
            err += "contextlens-cli: tokens: " + path + " is not a transcript: counted as plain text\n";
        } else {
            const Transcript &t = *r.transcript;
            tokencount::CountOptions opts;
            std::string why;
            // The o200k tokenizer is needed for the error table whatever --encoding says.
            auto o200k = enc == bpe::Encoding::O200kBase ? tok : loadTokenizer(bpe::Encoding::O200kBase, vocabDir, why);
            opts.o200k = o200k;
            opts.cl100k = enc == bpe::Encoding::Cl100kBase ? tok : loadTokenizer(bpe::Encoding::Cl100kBase, vocabDir, why);
            opts.noVocab = !o200k && !opts.cl100k;
            const auto count = tokencount::countTranscript(t, opts);
            const ojson cj = countJson(t, count);
            j["transcript"] = cj;
            text += "transcript       " + cj["format"].get<std::string>() + ", family " + cj["family"].get<std::string>()
                    + ", " + std::to_string(t.messages.size()) + " messages\n";
            text += "context tokens   " + std::to_string(count.total.tokens) + " ("
                    + std::string(tokencount::sourceName(count.total.source)) + ": " + count.total.how + ")\n";
            if (!count.note.empty())
                text += "note             " + count.note + "\n";
            if (o200k) {
                const auto table = tokencount::estimatorErrorTable(t, *o200k);
                j["estimatorError"] = tableJson(table);
                text += "\nestimator error against exact o200k_base, by content type:\n" + tokencount::formatTable(table);
            } else {
                j["estimatorError"] = nullptr;
                text += "no o200k_base vocabulary: no estimator error table (" + why + ")\n";
            }
            if (countIssues(t))
                code = Exit::Issues;
        }
    }
    if (o.json)
        o.print(j);
    else
        out += text;
    return code;
}

} // namespace cl::cli
