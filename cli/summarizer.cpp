// SPDX-License-Identifier: MIT
#include "cli/summarizer.h"

#include "core/util/json.h"
#include "core/util/regularfile.h"

#include <cstdlib>

namespace cl::cli {

namespace {

SummarizerFactory &factory()
{
    static SummarizerFactory f;
    return f;
}

bool number(const Args &a, const char *name, double min, double max, double &out, std::string &error)
{
    const auto v = a.value(name);
    if (!v)
        return true;
    char *end = nullptr;
    const double d = std::strtod(v->c_str(), &end);
    if (v->empty() || *end || d < min || d > max) {
        error = std::string(name) + ": a number from " + std::to_string(int(min)) + " to " + std::to_string(int(max));
        return false;
    }
    out = d;
    return true;
}

} // namespace

void setSummarizerFactory(SummarizerFactory f)
{
    factory() = std::move(f);
}

const std::vector<OptionSpec> &summarizerOptions()
{
    static const std::vector<OptionSpec> v{{"--summarizer", "", true}, {"--base-url", "", true}, {"--model", "", true}, {"--api-key-env", "", true}, {"--preset", "", true}, {"--max-output-tokens", "", true}, {"--temperature", "", true}, {"--timeout", "", true}, {"--retries", "", true}, {"--cache-dir", "", true}, {"--prices", "", true}, {"--prompt-template", "", true}, {"--verify", "", false}, {"--keep-dropped-facts", "", false}, {"--no-stream", "", false}};
    return v;
}

std::string summarizerHelp()
{
    return "Summaries: --summarizer rules (default, offline) | openai | openai-responses | anthropic | gemini\n"
           "  [--model M] [--base-url URL] [--api-key-env VAR] [--preset claude-code|gemini|codex|seed003]\n"
           "  [--max-output-tokens N] [--temperature T] [--timeout SECONDS] [--retries N] [--no-stream]\n"
           "  [--verify] [--keep-dropped-facts] [--cache-dir DIR] [--prices FILE] [--prompt-template FILE]\n"
           "  --prompt-template: a text file whose text replaces the preset's instruction (the history still\n"
           "  follows as data; a strategy's custom compact instructions, e.g. --param instructions=..., are added).\n"
           "  The key comes from VAR (default OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY); local servers\n"
           "  (Ollama: --summarizer openai --base-url http://127.0.0.1:11434/v1) need none. A summary that is\n"
           "  empty, refused, cut at the output limit, not smaller than what it replaces, or a failed call\n"
           "  fails the command (exit 2) and writes nothing; the report says why.\n"
           "  --timeout: the whole call, retries and their waits included (default 300). An answer over 32 MB\n"
           "  fails; redirects are followed only to the same scheme, host and port (never with the key elsewhere);\n"
           "  the key and URL credentials are masked in every message.\n";
}

std::unique_ptr<llm::ReportingSummarizer> summarizerFromArgs(const Args &a, std::string &error)
{
    const std::string name = a.value("--summarizer").value_or("rules");
    if (name == "rules") {
        for (const auto &o : summarizerOptions())
            if (o.name != "--summarizer" && (a.value(o.name) || a.has(o.name))) {
                error = o.name + " needs --summarizer with a provider (openai, openai-responses, anthropic, gemini)";
                return nullptr;
            }
        return nullptr;
    }
    const auto provider = llm::providerFromName(name);
    if (!provider) {
        error = "--summarizer: rules, openai, openai-responses, anthropic or gemini, not '" + name + "'";
        return nullptr;
    }
    if (!factory()) {
        error = "this program has no network summarizer (model summaries need contextlens-cli itself)";
        return nullptr;
    }
    // Text that goes into the request must be UTF-8 (JSON); say so rather than send replacement marks.
    for (const char *option : {"--model", "--base-url", "--api-key-env", "--preset", "--cache-dir", "--prices"})
        if (const auto v = a.value(option); v && !json::isValidUtf8(*v)) {
            error = std::string(option) + ": not UTF-8 text";
            return nullptr;
        }
    llm::SummarizerSettings s;
    s.config.provider = *provider;
    s.config.model = a.value("--model").value_or("");
    s.config.baseUrl = a.value("--base-url").value_or("");
    s.preset = a.value("--preset").value_or("");
    if (!s.preset.empty() && llm::presetForStyle(s.preset) != s.preset) {
        error = "--preset: claude-code, gemini, codex or seed003";
        return nullptr;
    }
    double d = s.config.maxOutputTokens;
    if (!number(a, "--max-output-tokens", 1, 1e6, d, error))
        return nullptr;
    s.config.maxOutputTokens = int(d);
    if (!number(a, "--temperature", 0, 2, s.config.temperature, error))
        return nullptr;
    d = s.config.timeoutMs / 1000.0;
    if (!number(a, "--timeout", 1, 3600, d, error))
        return nullptr;
    s.config.timeoutMs = int(d * 1000);
    d = s.config.retries;
    if (!number(a, "--retries", 0, 20, d, error))
        return nullptr;
    s.config.retries = int(d);
    s.config.stream = !a.has("--no-stream");
    s.verify = a.has("--verify");
    s.keepDroppedFacts = a.has("--keep-dropped-facts");
    s.cacheDir = a.value("--cache-dir").value_or("");
    s.pricesFile = a.value("--prices").value_or("");
    if (const auto path = a.value("--prompt-template")) {
        // A regular file of at most 1 MiB: a FIFO would block, /dev/zero would never end.
        std::string text;
        const util::ReadResult r = util::readRegularFile(*path, text, std::size_t(1) << 20);
        if (!r.ok() || text.find_first_not_of(" \t\r\n") == std::string::npos) {
            error = "--prompt-template: cannot read " + json::sanitizeUtf8(*path) + " ("
                    + (r.ok() ? std::string("it is empty") : r.why) + ")";
            return nullptr;
        }
        if (!json::isValidUtf8(text)) {
            error = "--prompt-template: " + json::sanitizeUtf8(*path) + " is not UTF-8 text (save it as UTF-8)";
            return nullptr;
        }
        s.systemTemplate = std::move(text);
    }
    const std::string variable = a.value("--api-key-env").value_or(llm::defaultApiKeyVariable(*provider));
    if (const char *key = std::getenv(variable.c_str()))
        s.config.apiKey = key;
    else if (a.value("--api-key-env")) {
        error = "--api-key-env: the environment variable " + variable + " is not set";
        return nullptr;
    }
    return factory()(s, error);
}

} // namespace cl::cli
