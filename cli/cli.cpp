// SPDX-License-Identifier: MIT
// Command dispatch, help, and the helpers every command shares.
#include "cli/cli.h"
#include "cli/summarizer.h"

#include "cli/common.h"
#include "core/util/terminaltext.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string_view>
#include <sys/stat.h>

namespace cl::cli {

std::optional<std::string> Args::value(const std::string &name) const
{
    const auto it = values.find(name);
    if (it == values.end())
        return std::nullopt;
    return it->second;
}

Args parseArgs(const std::vector<std::string> &args, const std::vector<OptionSpec> &specs)
{
    Args a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg.size() < 2 || arg[0] != '-' || arg == "--") {
            a.positional.push_back(arg);
            continue;
        }
        std::optional<std::string> inlineValue;
        if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
            inlineValue = arg.substr(eq + 1);
            arg.resize(eq);
        }
        if (arg == "--json" || arg == "--help" || arg == "-h") {
            a.flags.insert(arg == "-h" ? "--help" : arg);
            continue;
        }
        const OptionSpec *spec = nullptr;
        for (const auto &s : specs)
            if (arg == s.name || (!s.alias.empty() && arg == s.alias))
                spec = &s;
        if (!spec) {
            a.error = "unknown option " + arg;
            return a;
        }
        if (!spec->takesValue) {
            a.flags.insert(spec->name);
            continue;
        }
        if (inlineValue) {
            a.values[spec->name] = *inlineValue;
        } else if (i + 1 < args.size()) {
            a.values[spec->name] = args[++i];
        } else {
            a.error = "option " + arg + " needs a value";
            return a;
        }
    }
    return a;
}

int Output::fail(const std::string &message)
{
    if (json)
        print(ojson{{"error", message}});
    err += "contextlens-cli: " + message + "\n";
    return Exit::Failure;
}

std::string formatList()
{
    std::string s;
    for (Format f : allFormats()) {
        if (!s.empty())
            s += ", ";
        s += formatName(f);
    }
    return s;
}

std::optional<Format> parseFormat(const std::string &name, std::string &error)
{
    const auto f = formatFromName(name);
    if (!f || *f == Format::Unknown) {
        error = "unknown format '" + name + "' (one of: " + formatList() + ")";
        return std::nullopt;
    }
    return f;
}

namespace {
bool g_wholeHistory = false;                                   // --whole-history, for every command of this run
tokens::Estimator g_estimator = tokens::Estimator::Calibrated; // --estimator, likewise
} // namespace

tokens::Estimator commandEstimator()
{
    return g_estimator;
}

std::shared_ptr<Transcript> loadForCommand(const std::string &path, std::optional<Format> as, std::string &error)
{
    struct stat st = {};
    if (path != "-" && ::stat(path.c_str(), &st) != 0) { // "-": standard input
        error = path + ": no such file";
        return nullptr;
    }
    if (path != "-" && S_ISDIR(st.st_mode)) {
        error = path + ": is a directory";
        return nullptr;
    }
    LoadOptions opts;
    opts.format = as;
    opts.wholeHistory = g_wholeHistory;
    LoadResult r = loadFile(path, opts);
    if (!r.ok()) {
        error = r.error.empty() ? path + ": cannot load" : r.error;
        return nullptr;
    }
    if (r.transcript->format == Format::Unknown) {
        // Say why when the loader knows (binary, UTF-32, empty), not only that detection failed.
        std::string why;
        for (const auto &d : r.transcript->diagnostics)
            if (d.line == 0 && d.severity != Diagnostic::Severity::Info)
                why += (why.empty() ? "" : "; ") + d.message;
        error = r.transcript->path + ": " + (why.empty() ? std::string("cannot detect the transcript format") : why)
                + " (use --as FORMAT; one of: " + formatList() + ")";
        return nullptr;
    }
    return r.transcript;
}

std::string severityName(Diagnostic::Severity s)
{
    switch (s) {
    case Diagnostic::Severity::Info: return "info";
    case Diagnostic::Severity::Warning: return "warning";
    case Diagnostic::Severity::Error: return "error";
    }
    return "warning";
}

namespace {

template <typename F>
void forEachDiagnostic(const Transcript &t, F f)
{
    for (const auto &d : t.diagnostics)
        f(d);
    for (const auto &sub : t.subagents)
        if (sub)
            for (const auto &d : sub->diagnostics)
                f(d);
}

} // namespace

std::size_t countIssues(const Transcript &t)
{
    std::size_t n = 0;
    forEachDiagnostic(t, [&n](const Diagnostic &d) { n += d.severity != Diagnostic::Severity::Info; });
    return n;
}

ojson diagnosticsJson(const Transcript &t)
{
    ojson list = ojson::array();
    forEachDiagnostic(t, [&list](const Diagnostic &d) {
        list.push_back(ojson{{"file", d.file}, {"line", d.line}, {"severity", severityName(d.severity)}, {"message", d.message}, {"text", d.toString()}});
    });
    return list;
}

std::string helpText()
{
    return "contextlens-cli " + std::string(kVersion) + ": inspect LLM agent transcripts\n"
                                                        "\n"
                                                        "Usage: contextlens-cli COMMAND [OPTIONS]\n"
                                                        "\n"
                                                        "Commands:\n"
                                                        "  info FILE [--as FORMAT] [--json]\n"
                                                        "      Format, size, line types, messages by role and kind, tool calls and rounds, estimated and\n"
                                                        "      measured tokens, subagents, compactions and diagnostics.\n"
                                                        "  validate FILE [--as FORMAT] [--json]\n"
                                                        "      Check the file against the rules of FORMAT (default: the detected format).\n"
                                                        "  convert FILE --to FORMAT -o OUT [--as FORMAT] [--force] [--redact] [--json]\n"
                                                        "      Write FILE in another format (OUT '-': standard output); never overwrites FILE or an\n"
                                                        "      existing OUT without --force. What was written is loaded back and validated.\n"
                                                        "  generate --format FORMAT (--messages N | --size-mb M) [--seed S] [--max-read-lines L] -o OUT [--json]\n"
                                                        "      Write a synthetic agent session (OUT '-' writes to standard output).\n"
                                                        "  tokens FILE|- [--encoding o200k_base|cl100k_base] [--report] [--json]\n"
                                                        "      Exact BPE token count of a text file or stdin; --report on a transcript adds the\n"
                                                        "      per-model-family count (exact / measured / estimated) and the estimator error table.\n"
                                                        "  analyze FILE [--as FORMAT] [--json]\n"
                                                        "      Tool rounds, boundary scores, priority classes, importance, features, recommendation,\n"
                                                        "      zones and trigger decisions, usage band and facts.\n"
                                                        "  strategies [--json]  Every compression strategy with its parameters, types, ranges and defaults.\n"
                                                        "  compact FILE --strategy NAME [--param k=v ...] [-o OUT [--to FORMAT] | --in-place] [--json]\n"
                                                        "      Run one strategy: fates, tokens before/after, efficiency, fact retention, cache prefix,\n"
                                                        "      validity; -o exports the result (Claude Code: appended as a compaction).\n"
                                                        "  compare FILE [--only a,b] [--sort KEY] [--cost-turns N [--model M]] [--json]\n"
                                                        "      Run every strategy (or the listed ones) and print the comparison table; --cost-turns\n"
                                                        "      adds the dollars of the next turn and the next N turns, prompt cache included.\n"
                                                        "  cost FILE [--model M] [--prices FILE] [--json]\n"
                                                        "      What the session cost from its measured usage, by model and kind (input, cache writes,\n"
                                                        "      cache reads, output), checked against the cost the agent recorded where it did.\n"
                                                        "  simulate FILE --strategy NAME [--param k=v ...] [--by request|turn] [--window N] [--cost] [--json]\n"
                                                        "      Replay the session request by request (or by user turn) under a strategy: live context\n"
                                                        "      per step with and without it, the first step over the window, compactions; --cost: dollars.\n"
                                                        "  context FILE [--at N] [--window N] [--over-time [--csv]] [--json]\n"
                                                        "      Where the live context goes at message N (default: the last): fixed part, messages by\n"
                                                        "      category, free space and the agent's buffer, the biggest items, files read more than\n"
                                                        "      once, and suggestions with the tokens each strategy frees; --over-time: per message.\n"
                                                        "  audit FILE [--as FORMAT] [--strategies a,b|none] [--json]\n"
                                                        "      Every compaction the agent made: tokens before and after, the facts its summary kept\n"
                                                        "      and dropped, and what each strategy would have kept from the same history.\n"
                                                        "  watch FILE [--interval MS] [--updates N] [--seconds S] [--window N] [--json]\n"
                                                        "      Follow a session its agent is writing: a line per change with the messages added\n"
                                                        "      and the turns left before the agent's own auto-compaction.\n"
                                                        "  backups FILE [--restore latest|STAMP|N] [--root DIR] [--json]\n"
                                                        "      The backups kept of a session file saved over in place (compact --in-place, the GUI's\n"
                                                        "      Save); --restore puts one back after backing up what the file holds now.\n"
                                                        "  sessions [--home DIR] [--folder DIR ...] [--agent A] [--project TEXT] [--sort KEY] [--json]\n"
                                                        "      The Claude Code, Codex and Gemini CLI sessions on this machine, grouped by project:\n"
                                                        "      times, messages, peak measured context, compactions, size, cost, model and first request.\n"
                                                        "  report FILE -o OUT.html|OUT.md [--strategies a,b|none] [--preview NAME] [--force] [--redact] [--json]\n"
                                                        "      A self-contained report of the session: figures, context map and usage chart, where\n"
                                                        "      the context goes, the compactions with their audit, the compare table, a preview.\n"
                                                        "  export-markdown FILE -o OUT.md [--max-result-chars N] [--no-thinking] [--force] [--redact] [--json]\n"
                                                        "      The transcript as Markdown for sharing: tool calls, results and thinking folded.\n"
                                                        "  help [COMMAND]       This text, or a command's help (same as COMMAND --help).\n"
                                                        "  --version            Print the version.\n"
                                                        "\n"
                                                        "Formats: "
           + formatList() + "\n"
                            "Every command accepts --json for machine-readable output. FILE '-' reads standard input;\n"
                            "pipes and FIFOs are read to their end. UTF-16 files are decoded (with a warning).\n"
                            "Written files follow the umask when new and keep their mode when replaced (--force).\n"
                            "\n"
                            "Every figure is about the live context, what the model sees: the conversation after the\n"
                            "last compaction plus the fixed part of each request (system prompt, tools); history before\n"
                            "a compaction is loaded and written back untouched. --whole-history (any command) counts\n"
                            "every message instead. Tokens are the agent's: the last measured usage still current plus\n"
                            "a plain estimate of what followed, times a factor learned from the session's usage;\n"
                            "--estimator seed (the plain estimate alone) or exact (BPE counts) count otherwise.\n"
                            "\n"
                            "Exit codes:\n"
                            "  0  success\n"
                            "  1  loaded or validated, but with diagnostics (warnings, errors) or violations\n"
                            "  2  failure: unreadable file, unknown format, bad usage, write error\n";
}

std::string commandHelp(const std::string &command)
{
    if (command == "backups")
        return "Usage: contextlens-cli backups FILE [--restore latest|STAMP|N] [--root DIR] [--json]\n"
               "Lists the backups ContextLens keeps of FILE, newest first (the last ten; under\n"
               "$XDG_DATA_HOME/contextlens/backups, or --root). --restore puts one back over FILE, after\n"
               "backing up what FILE holds now, so a restore can be undone the same way.\n";
    if (command == "info")
        return "Usage: contextlens-cli info FILE [--as FORMAT] [--json]\n"
               "Summarises a transcript. --as forces the format instead of detecting it.\n"
               "Exit: 0 clean, 1 with diagnostics, 2 unreadable or unknown format.\n";
    if (command == "validate")
        return "Usage: contextlens-cli validate FILE [--as FORMAT] [--json]\n"
               "Loads FILE (as FORMAT when given) and checks it against FORMAT's rules; prints every\n"
               "violation with its message index. Exit: 0 valid, 1 violations or diagnostics, 2 failure.\n";
    if (command == "convert")
        return "Usage: contextlens-cli convert FILE --to FORMAT -o OUT [--as FORMAT] [--force] [--redact] [--redact-patterns FILE] [--json]\n"
               "Writes FILE as FORMAT to OUT atomically (OUT '-': standard output, the report then goes to\n"
               "standard error) and prints what could not be carried over. Refuses to overwrite FILE or an\n"
               "existing OUT unless --force; a replaced file keeps its mode. What was written is loaded back\n"
               "as FORMAT and checked with the rules of `validate`; an input that breaks its own format's\n"
               "rules is reported too. Exit: 0 written and valid, 1 written with violations (output or\n"
               "input) or input diagnostics, 2 failure.\n"
               "Redaction (convert, compact -o, report, export-markdown): --redact replaces provider API keys, private\n"
               "key blocks, JWTs, passwords in URLs and .env-style KEY/SECRET/TOKEN/PASSWORD values by placeholders\n"
               "such as [REDACTED:anthropic-key:1] (the same secret, the same placeholder) and prints the count per\n"
               "rule; --redact-patterns FILE (implies --redact) adds one regex per line, \"ID: REGEX\" or \"REGEX\".\n";
    if (command == "tokens")
        return "Usage: contextlens-cli tokens FILE|- [--encoding o200k_base|cl100k_base] [--report] [--vocab-dir DIR] [--json]\n"
               "Counts FILE (or stdin for '-') exactly with the BPE vocabulary (installed by scripts/fetch-vocab.sh).\n"
               "--report on a transcript: per-message-family count and the estimator's error by content type.\n"
               "Exit: 0 counted, 1 transcript with diagnostics, 2 failure (missing file or vocabulary).\n";
    if (command == "report")
        return "Usage: contextlens-cli report FILE -o OUT.html|OUT.md [--to html|markdown] [--strategies NAME,NAME|none]\n"
               "                              [--preview NAME [--param NAME=VALUE ...]] [--window TOKENS] [--as FORMAT]\n"
               "                              [--force] [--redact] [--redact-patterns FILE] [--no-remote-images] [--json]\n"
               "Writes a self-contained report of the session (the format from OUT's extension, or --to; OUT '-' is\n"
               "standard output): its figures, the context map and the usage chart (inline SVG), where the live\n"
               "context goes (as `context`), every compaction with its audit (as `audit`), the compare table (as\n"
               "`compare`; --strategies picks the strategies of the table and of the audit rows, none leaves both\n"
               "out) and, with --preview, that strategy's result (--param sets its parameters): stats and the fate\n"
               "of every message. The HTML has no script and loads nothing; it follows the light or dark scheme.\n"
               "Markdown has the same sections, the charts as a small table. Never written over FILE (a link to\n"
               "it included), whatever the options; an existing OUT only with --force. --no-remote-images (and\n"
               "--redact) turns Markdown images with a remote address into plain links, which load nothing.\n"
               "Redaction (convert, compact -o, report, export-markdown): --redact replaces provider API keys, private\n"
               "key blocks, JWTs, passwords in URLs and .env-style KEY/SECRET/TOKEN/PASSWORD values by placeholders\n"
               "such as [REDACTED:anthropic-key:1] (the same secret, the same placeholder) and prints the count per\n"
               "rule; --redact-patterns FILE (implies --redact) adds one regex per line, \"ID: REGEX\" or \"REGEX\".\n"
               "Exit: 0 written, 2 failure.\n";
    if (command == "export-markdown")
        return "Usage: contextlens-cli export-markdown FILE -o OUT.md [--max-result-chars N] [--no-thinking] [--no-history]\n"
               "                                       [--no-sidechains] [--metadata] [--as FORMAT] [--force]\n"
               "                                       [--redact] [--redact-patterns FILE] [--no-remote-images] [--json]\n"
               "Writes the transcript as Markdown for sharing (OUT '-': standard output): a header (format,\n"
               "messages, live context), each message as a heading with its role, kind and time, texts as\n"
               "written, tool calls, results and thinking folded in <details> (results longer than N characters,\n"
               "default 4000, cut with a note), compactions as a rule with a note, and the history before the\n"
               "last compaction in a section of its own. Markdown cannot be loaded back, so this is not a\n"
               "`convert` format. Never written over FILE (a link to it included), whatever the options; an\n"
               "existing OUT only with --force. --no-remote-images (and --redact) turns images with a remote\n"
               "address into plain links, which a viewer does not load.\n"
               "Redaction (convert, compact -o, report, export-markdown): --redact replaces provider API keys, private\n"
               "key blocks, JWTs, passwords in URLs and .env-style KEY/SECRET/TOKEN/PASSWORD values by placeholders\n"
               "such as [REDACTED:anthropic-key:1] (the same secret, the same placeholder) and prints the count per\n"
               "rule; --redact-patterns FILE (implies --redact) adds one regex per line, \"ID: REGEX\" or \"REGEX\".\n"
               "Exit: 0 written, 2 failure.\n";
    if (command == "audit")
        return "Usage: contextlens-cli audit FILE [--as FORMAT] [--strategies NAME,NAME|none] [--json]\n"
               "For every compaction the agent made (Claude Code compact_boundary, Codex compacted, Gemini CLI\n"
               "compression): the messages it replaced, its summary, the tokens before (compactMetadata.preTokens\n"
               "where recorded, else the estimate of the live context then) and after (the summary and what\n"
               "the agent kept), the facts of the replaced history (requests, paths, commands, errors) the\n"
               "summary kept and dropped, the pending request, and a row per strategy run (forced) on the same\n"
               "history: tokens after and fact retention. --strategies picks them (default: every strategy\n"
               "that writes a summary or removes messages; none: no rows).\n"
               "Exit: 0 (also when the session has no compaction), 2 failure.\n";
    if (command == "sessions")
        return "Usage: contextlens-cli sessions [--home DIR] [--folder DIR ...] [--agent claude-code|codex|gemini|api]\n"
               "                                [--project TEXT] [--sort last|start|size|peak|messages|cost]\n"
               "                                [--cache FILE | --no-cache] [--prices FILE] [--json]\n"
               "Lists the agent sessions under DIR (default: $HOME): Claude Code (.claude/projects/*/*.jsonl, its\n"
               "subagent files counted with their session), Codex (.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)\n"
               "and Gemini CLI (.gemini/tmp/*/chats/session-*, checkpoint-*.json marked [checkpoint]), plus every\n"
               "transcript file under each --folder. Grouped by project, one line per session: start and last\n"
               "activity (UTC), agent, messages, peak measured context (input + cache tokens of one response),\n"
               "compactions, size, cost (the measured usage of the session and its subagents, each response\n"
               "once, priced as for contextlens-cli cost; \"+\": some model has no price, \"-\": no usage\n"
               "recorded), model, title or first request, path. --agent and --project (a substring)\n"
               "filter; --sort orders, largest or newest first (default: last). Files are read only when their\n"
               "size or modification time changed since the cache was written (default cache:\n"
               "$XDG_CACHE_HOME/contextlens/sessions.json, else ~/.cache/contextlens/sessions.json).\n"
               "Exit: 0, 2 bad usage.\n";
    if (command == "context")
        return "Usage: contextlens-cli context FILE [--as FORMAT] [--at N] [--window N] [--over-time [--csv]] [--json]\n"
               "The live context at message N (1 = the first; default the last) by category: the fixed part of\n"
               "every request (system prompt, tools, MCP tools by server, where the file records them), the\n"
               "messages (user and assistant text, thinking, tool calls, results per tool, media, summaries,\n"
               "framing), free space and the agent's reserved buffer. The categories add up to the total.\n"
               "Then the biggest items, files read more than once, and suggestions, each with the tokens its\n"
               "strategy frees when run. --over-time prints every message's categories (CSV; JSON with --json).\n"
               "Exit: 0, 2 failure.\n";
    if (command == "analyze")
        return "Usage: contextlens-cli analyze FILE [--as FORMAT] [--json]\n"
               "Runs the analysis engine (priorities, importance, boundaries, zones, recommendation) and prints its results with their reasons.\n"
               "Exit: 0 analysed, 1 with diagnostics, 2 failure.\n";
    if (command == "strategies")
        return "Usage: contextlens-cli strategies [--json]\n"
               "Lists every strategy: name, title, what it does (shrink tool results, remove messages,\n"
               "summarize) and whose policy it follows, description and each parameter with its type,\n"
               "range or choices, default and help (--json adds the design reference). Exit: 0.\n";
    if (command == "compact")
        return "Usage: contextlens-cli compact FILE --strategy NAME [--param NAME=VALUE ...] [-o OUT] [--to FORMAT]\n"
               "                               [--as FORMAT] [--window TOKENS] [--pin I,J] [--exempt TOOL,TOOL]\n"
               "                               [--no-compaction-style] [--force] [--in-place [--backup-root DIR]]\n"
               "                               [--redact [--redact-patterns FILE]] [--json]\n"
               "Runs one strategy and reports what happened to every message class, the tokens before and\n"
               "after, the efficiency (0.6 x reduction + 0.4 x messages kept), fact retention, the reusable cache prefix and validity.\n"
               "-o writes the result atomically in the source format (or --to FORMAT; OUT '-' is standard\n"
               "output); what was written is loaded back and validated (\"valid\" is that check). A Claude Code session\n"
               "is written as Claude Code writes its own compactions (the original lines stay, then a\n"
               "compact_boundary and the new context) unless --no-compaction-style. Never overwrites FILE or\n"
               "an existing OUT without --force. --in-place (or -o FILE --force) saves over FILE itself: only\n"
               "when FILE did not change since it was read (an agent still writing it makes it grow) and the\n"
               "result reloads with the same live context, after a timestamped backup (contextlens-cli backups\n"
               "FILE lists and restores them). --pin keeps messages (transcript indices) untouched;\n"
               "--exempt keeps those tools' calls and results. --window sets the context window. --redact (with\n"
               "-o only) replaces the secrets in what is written, as for convert.\n"
               "Exit: 0 valid result, 1 result with violations, 2 failure (bad parameter, unreadable file).\n"
               + summarizerHelp();
    if (command == "watch")
        return "Usage: contextlens-cli watch FILE [--as FORMAT] [--interval MS] [--updates N] [--seconds S] [--window N] [--json]\n"
               "Follows a session while its agent writes it. Each poll (every --interval ms, default 1000) reads only\n"
               "the bytes appended since the last one; the new lines of a Claude Code or Codex session are parsed\n"
               "with the current turn, a line still being written waits for its end, and a file that shrank or was\n"
               "replaced (or a Gemini CLI chat, which its agent rewrites whole) is read again. One line per change:\n"
               "messages added, how the update was made, the context (measured where the agent recorded usage) and\n"
               "the turns left before the agent's auto-compaction from the growth per turn over the last 5 turns\n"
               "(Claude Code: window - 13,000 tokens; Codex CLI: 90 % of the window; Gemini CLI: 50 %).\n"
               "Stops after --updates changes or --seconds seconds (0: never; Ctrl+C ends it). --json: JSON Lines.\n"
               "A file rewritten in place is read again; only regular files are followed; a missing file is waited\n"
               "for (until --seconds ends, else 10 s). A compaction ContextLens saved that the agent then left\n"
               "behind (it continued from before it) is said at once (event \"undone-compaction\").\n";
    if (command == "cost")
        return "Usage: contextlens-cli cost FILE [--as FORMAT] [--model M] [--prices FILE] [--json]\n"
               "What the session cost, from the usage its agent recorded per API response (Claude Code: the\n"
               "last line of each message.id, subagent files included; Codex token_count; Gemini CLI tokens),\n"
               "priced by each response's model (--model M: all as M): per model and in all, the tokens and\n"
               "dollars of uncached input, cache writes (5-minute and 1-hour TTL), cache reads and output.\n"
               "Claude Code's own cost (costUSD of older versions, the Agent SDK's budget_usd) is compared with\n"
               "ours where the file has it; today's Claude Code writes none.\n"
               "Prices: resources/prices.json as installed (share/contextlens/prices.json) or built in, then\n"
               "$XDG_CONFIG_HOME/contextlens/prices.json (else ~/.config/contextlens/prices.json), then\n"
               "--prices FILE, each merged over the one before: {\"models\": [{\"match\": \"claude-sonnet-4\",\n"
               "\"input\": 3, \"output\": 15, \"cacheWrite5m\": 3.75, \"cacheWrite1h\": 6, \"cacheRead\": 0.3}]}, $ per\n"
               "million tokens; a model matches the longest entry its name (or a part after / . : @) starts with.\n"
               "Exit: 0, 1 some response's model has no price (its cost is unknown, the rest is summed), 2 failure.\n";
    if (command == "compare")
        return "Usage: contextlens-cli compare FILE [--only NAME,NAME] [--sort tokens|reduction|efficiency|facts|cache|time]\n"
               "                               [--as FORMAT] [--window TOKENS] [--pin I,J] [--exempt TOOL,TOOL] [--json]\n"
               "Runs every strategy with its defaults (on two threads) and prints one row each: tokens\n"
               "before/after, reduction, efficiency, fact retention, cache prefix, validity, time and note.\n"
               "Exit: 0 all results valid, 1 some result has violations, 2 failure.\n"
               "With a model summarizer (--summarizer and its options, as for compact) --only is required, and\n"
               "each strategy runs twice: with the rules and, as NAME+model, with the model (its cost beside it).\n"
               "--cost-turns N [--model M] [--prices FILE]: columns with the dollars of the next turn and of the\n"
               "next N turns (a turn is one request) after each strategy, a \"no compaction\" row, and b/even, the\n"
               "turn from which the strategy has cost no more than no compaction. The first request sends the\n"
               "fixed part and the conversation: the prefix the strategy left unchanged is read from the prompt\n"
               "cache, the rest written to it; every later request adds the session's measured growth per\n"
               "request (written, then read) and its average output. Priced as the session's model or M (with\n"
               "a model summarizer, --model is its model: name the priced one with --cost-model M); prices as\n"
               "for contextlens-cli cost.\n";
    if (command == "simulate")
        return "Usage: contextlens-cli simulate FILE --strategy NAME [--param NAME=VALUE ...] [--window TOKENS]\n"
               "                                [--by request|turn] [--max-turns N] [--stride N|auto] [--pin I,J]\n"
               "                                [--exempt TOOL,TOOL] [--cost [--model M] [--prices FILE]] [--as FORMAT]\n"
               "                                [--estimator seed|calibrated|exact] [--json]\n"
               "Replays FILE step by step as an agent that runs the strategy after every step and carries\n"
               "its result on. A step is one request to the model (--by request, the default: it ends at\n"
               "each response, so an agent's tool rounds are steps) or one user turn (--by turn: from one\n"
               "user request to the next). Prints per step the messages, the live context (fixed part\n"
               "included, in the agent's count) without any strategy and with it, its share of the window,\n"
               "the conversation with it (plain estimate), the managed messages and whether (*) and how the\n"
               "strategy changed something; then the window, the first step over it without / with the\n"
               "strategy and the number of compactions. --window sets the window (default: by model, else\n"
               "200000); --max-turns stops after N steps; --stride N runs the strategy only every N steps\n"
               "(auto: at most about 200 runs, for long sessions). --pin keeps those messages\n"
               "(transcript indices) untouched by every run; --exempt keeps those tools' calls and results.\n"
               "--cost (implied by --model or --prices) adds each turn's dollars with and without the strategy,\n"
               "prompt cache included: every response is a request that reads its cached prefix (the previous\n"
               "request), writes the rest (5-minute price) and pays its output; a compaction rewrites what\n"
               "follows the prefix the strategy kept. Estimated tokens, priced as the session's model or M\n"
               "(prices as for contextlens-cli cost).\n"
               "Exit: 0 simulated, 2 failure (unknown strategy, bad parameter, unreadable file).\n";
    if (command == "generate")
        return "Usage: contextlens-cli generate --format FORMAT (--messages N | --size-mb M) [--seed S]\n"
               "                                [--max-read-lines L] -o OUT [--json]\n"
               "Writes a deterministic synthetic agent session (same seed, same bytes), replacing OUT\n"
               "atomically if it exists. OUT '-' is stdout.\n"
               "--max-read-lines caps file reads (default 2000, as Claude Code) for small demo files.\n"
               "Exit: 0 written, 2 failure.\n";
    return helpText();
}

namespace {

int runCommand(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    if (args.empty()) {
        err += helpText();
        return Exit::Failure;
    }
    const std::string &cmd = args.front();
    // --whole-history: every message counts, history before the last compaction included.
    // --estimator seed|calibrated|exact: how the live context is counted.
    std::vector<std::string> rest;
    g_wholeHistory = false;
    g_estimator = tokens::Estimator::Calibrated;
    for (auto it = args.begin() + 1; it != args.end(); ++it)
        if (*it == "--whole-history") {
            g_wholeHistory = true;
        } else if (*it == "--estimator") {
            const auto e = it + 1 != args.end() ? tokens::parseEstimator(*(it + 1)) : std::nullopt;
            if (!e) {
                err += "--estimator: expected seed, calibrated or exact\n";
                return Exit::Failure;
            }
            g_estimator = *e;
            ++it;
        } else {
            rest.push_back(*it);
        }
    bool json = false;
    for (const auto &a : rest)
        json = json || a == "--json";
    if (cmd == "--version" || cmd == "version") {
        if (json)
            out += ojson{{"version", kVersion}}.dump() + "\n";
        else
            out += "contextlens-cli " + std::string(kVersion) + "\n";
        return Exit::Success;
    }
    if (cmd == "help" || cmd == "--help" || cmd == "-h") {
        std::string topic;
        for (const auto &a : rest)
            if (a != "--json")
                topic = a;
        const std::string text = topic.empty() ? helpText() : commandHelp(topic);
        if (json) {
            ojson codes{{"0", "success"}, {"1", "loaded or validated, but with diagnostics or violations"}, {"2", "failure: unreadable file, unknown format, bad usage, write error"}};
            ojson formats = ojson::array();
            for (Format f : allFormats())
                formats.push_back(std::string(formatName(f)));
            // clang-format off
            out += ojson{{"version", kVersion}, {"commands", {"info", "validate", "convert", "generate", "analyze", "tokens", "strategies", "compact", "compare", "simulate", "context", "audit", "backups", "sessions", "report", "export-markdown", "cost", "watch", "help"}},
                {"formats", formats}, {"exitCodes", codes}, {"help", text}}.dump(2) + "\n";
            // clang-format on
        } else {
            out += text;
        }
        return Exit::Success;
    }
    if (cmd == "info")
        return info(rest, out, err);
    if (cmd == "validate")
        return validate(rest, out, err);
    if (cmd == "convert")
        return convert(rest, out, err);
    if (cmd == "generate")
        return generate(rest, out, err);
    if (cmd == "analyze")
        return analyze(rest, out, err);
    if (cmd == "tokens")
        return tokens(rest, out, err);
    if (cmd == "strategies")
        return strategies(rest, out, err);
    if (cmd == "compact")
        return compact(rest, out, err);
    if (cmd == "compare")
        return compare(rest, out, err);
    if (cmd == "simulate")
        return simulate(rest, out, err);
    if (cmd == "context")
        return context(rest, out, err);
    if (cmd == "audit")
        return audit(rest, out, err);
    if (cmd == "backups")
        return backupsCommand(rest, out, err);
    if (cmd == "sessions")
        return sessions(rest, out, err);
    if (cmd == "report")
        return report(rest, out, err);
    if (cmd == "export-markdown")
        return exportMarkdown(rest, out, err);
    if (cmd == "cost")
        return costCommand(rest, out, err);
    if (cmd == "watch")
        return watch(rest, out, err);
    Output o{out, err, json};
    return o.fail("unknown command '" + cmd + "' (try: contextlens-cli help)");
}

// Commands whose standard output is a report for a person, never a transcript written to "-".
bool isReportCommand(const std::string &cmd)
{
    static const std::set<std::string> reports = {"info", "validate", "analyze", "tokens", "strategies", "compare",
                                                  "simulate", "context", "audit", "backups", "sessions", "cost"};
    return reports.count(cmd) != 0;
}

// C0 control characters other than line breaks: never raw in JSON as the commands write it (DEL
// and C1 are, which jsonTerminalSafe escapes).
bool hasRawControls(std::string_view text)
{
    for (const char c : text)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t')
            return true;
    return false;
}

} // namespace

// Transcripts may hold terminal control sequences (ESC[2J clears the screen, OSC sets the window
// title): what a report command prints, and every message, is made terminal-safe (core/util/
// terminaltext.h). JSON keeps its meaning: only DEL and C1, which JSON lets through raw, become \u
// escapes there.
int run(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::size_t errFrom = err.size();
    int code = 0;
    if (!args.empty() && isReportCommand(args.front())) {
        std::string report;
        code = runCommand(args, report, err);
        const bool json = std::find(args.begin(), args.end(), "--json") != args.end();
        out += json && !hasRawControls(report) ? util::jsonTerminalSafe(report) : util::terminalSafe(report);
    } else {
        code = runCommand(args, out, err);
    }
    if (!util::isTerminalSafe(std::string_view(err).substr(errFrom)))
        err.replace(errFrom, std::string::npos, util::terminalSafe(std::string_view(err).substr(errFrom)));
    return code;
}

int run(int argc, char **argv, std::FILE *out, std::FILE *err)
{
    std::vector<std::string> args;
    for (int i = 1; i < argc; ++i)
        args.emplace_back(argv[i]);
    std::string o, e;
    std::fflush(out);
    setStdoutDescriptor(::fileno(out)); // a transcript written to "-" streams there
    int code = run(args, o, e);
    setStdoutDescriptor(-1);
    // A full disk or a closed pipe on standard output is a failure, not a success with nothing shown.
    const bool written = std::fwrite(o.data(), 1, o.size(), out) == o.size();
    if ((!written || std::fflush(out) != 0 || std::ferror(out)) && code != Exit::Failure) {
        e += "contextlens-cli: cannot write to standard output: " + std::string(std::strerror(errno)) + "\n";
        code = Exit::Failure;
    }
    std::fwrite(e.data(), 1, e.size(), err);
    std::fflush(err);
    return code;
}

} // namespace cl::cli
