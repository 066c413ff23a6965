// SPDX-License-Identifier: MIT
// Claude Code loading, stage by stage: read, split lines, parse+extract (threads), assemble (records,
// branch, messages), linkToolPairs, estimateAll; wall and CPU (user+sys, all threads) per stage, so
// a busy shared machine does not hide where the time goes.
//
//   bench_load_profile [--runs N] [--threads T] FILE          stage timings (best of N)
//   bench_load_profile --check FILE...                         simdjson path vs nlohmann DOM path,
//                                                              line by line, on the files and on
//                                                              mutated copies of their lines, and
//                                                              the estimator against its previous
//                                                              implementation on all their texts
//   bench_load_profile --check-estimates FILE...               only the estimator comparison
#include "core/util/allocator.h"
#include "core/formats/claudecode/internal.h"
#include "core/io/loader.h"
#include "core/tokens/estimator.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <random>
#include <unordered_set>
#include <string>
#include <vector>

namespace cc = cl::formats::claudecode;

namespace {

using Clock = std::chrono::steady_clock;

double cpuMs()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0
           + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0;
}

struct Stage {
    const char *name;
    double wall = 1e18, cpu = 1e18;
};

struct Timer {
    Clock::time_point t0 = Clock::now();
    double c0 = cpuMs();
    void stop(Stage &s) const
    {
        s.wall = std::min(s.wall, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        s.cpu = std::min(s.cpu, cpuMs() - c0);
    }
};

bool readFile(const std::string &path, std::string &bytes)
{
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f)
        return false;
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    bytes.reserve(std::size_t(size) + cl::kBufferPadding);
    bytes.resize(std::size_t(size));
    const std::size_t got = std::fread(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    bytes.resize(got);
    return true;
}

int profile(const std::string &path, int runs, int threads)
{
    Stage st[] = {{"read file"}, {"split lines"}, {"parse+extract"}, {"assemble+branch"}, {"linkToolPairs"}, {"estimateAll"}, {"loadFile (end to end)"}};
    std::size_t messages = 0, size = 0;
    for (int r = 0; r < runs; ++r) {
        cl::LoadOptions opts;
        opts.threads = threads;
        opts.loadSubagents = false;
        const cl::formats::LoadContext ctx{opts, {}};
        Timer t;
        std::string bytes;
        if (!readFile(path, bytes)) {
            std::fprintf(stderr, "%s: cannot read\n", path.c_str());
            return 2;
        }
        t.stop(st[0]);
        cl::Transcript tr;
        tr.format = cl::Format::ClaudeCode;
        cl::padBuffer(bytes);
        tr.buffer = std::make_shared<const std::string>(std::move(bytes));
        t = Timer();
        const auto spans = cl::json::splitLines(*tr.buffer);
        t.stop(st[1]);
        t = Timer();
        std::vector<cc::LineInfo> lines(spans.size());
        cc::decodeLines(tr, spans, lines, ctx);
        t.stop(st[2]);
        t = Timer();
        cc::assemble(tr, spans, lines, ctx);
        t.stop(st[3]);
        t = Timer();
        cl::linkToolPairs(tr);
        t.stop(st[4]);
        t = Timer();
        cl::tokens::estimateAll(tr, threads);
        t.stop(st[5]);
        messages = tr.messages.size();
        size = tr.buffer->size();
    }
    for (int r = 0; r < runs; ++r) {
        cl::LoadOptions opts;
        opts.threads = threads;
        Timer t;
        const auto res = cl::loadFile(path, opts);
        t.stop(st[6]);
        if (!res.ok() || res.transcript->messages.size() != messages)
            std::fprintf(stderr, "warning: loadFile gave %zu messages, stages %zu\n",
                         res.ok() ? res.transcript->messages.size() : 0, messages);
    }
    std::printf("%s: %.1f MB, %zu messages, %d threads, best of %d\n", path.c_str(), double(size) / 1048576.0,
                messages, threads, runs);
    double sumWall = 0, sumCpu = 0;
    for (const auto &s : st) {
        std::printf("  %-24s wall %7.1f ms   cpu %7.1f ms\n", s.name, s.wall, s.cpu);
        if (&s != &st[6]) {
            sumWall += s.wall;
            sumCpu += s.cpu;
        }
    }
    std::printf("  %-24s wall %7.1f ms   cpu %7.1f ms\n", "sum of stages", sumWall, sumCpu);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("  peak RSS %.0f MB (%.2fx file)\n", double(ru.ru_maxrss) / 1024.0,
                double(ru.ru_maxrss) * 1024.0 / double(std::max<std::size_t>(size, 1)));
    return 0;
}

// ---- --check: the estimator's previous implementation, for an exact comparison --------------

namespace ref {

// JavaScript's String.length: UTF-16 code units (the seed is JavaScript).
std::size_t utf16Length(std::string_view s)
{
    std::size_t n = 0;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if ((c & 0xC0) != 0x80)
            ++n; // every lead or ASCII byte starts one code point
        if (c >= 0xF0)
            ++n; // 4-byte sequences are surrogate pairs in UTF-16
    }
    return n;
}

std::size_t countSubstr(std::string_view s, std::string_view needle)
{
    std::size_t n = 0;
    for (std::size_t p = s.find(needle); p != std::string_view::npos; p = s.find(needle, p + needle.size()))
        ++n;
    return n;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Matches of /https?:\/\/\S+/g: each "http://" or "https://" followed by at least one non-space.
std::size_t countUrls(std::string_view s)
{
    std::size_t n = 0;
    std::size_t p = 0;
    while ((p = s.find("http", p)) != std::string_view::npos) {
        std::size_t q = p + 4;
        if (q < s.size() && s[q] == 's')
            ++q;
        if (s.substr(q, 3) == "://" && q + 3 < s.size() && !isSpace(s[q + 3])) {
            ++n;
            q += 3;
            while (q < s.size() && !isSpace(s[q]))
                ++q; // the match consumes the URL, so "http" inside it is not counted again
            p = q;
        } else {
            p += 4;
        }
    }
    return n;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

double repetition(std::string_view text)
{
    constexpr std::size_t kMinLine = 8;
    std::unordered_set<std::string_view> seen;
    std::size_t lines = 0;
    std::size_t repeated = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = text.size();
        const std::string_view line = trim(text.substr(pos, nl - pos));
        pos = nl + 1;
        if (line.size() < kMinLine)
            continue;
        ++lines;
        if (!seen.insert(line).second)
            ++repeated;
    }
    if (lines >= 2)
        return double(repeated) / double(lines);
    // One long line: 8-byte shingles taken every 8 bytes.
    constexpr std::size_t kShingle = 8;
    if (text.size() < 32 * kShingle)
        return 0.0;
    seen.clear();
    std::size_t total = 0;
    repeated = 0;
    for (std::size_t p = 0; p + kShingle <= text.size(); p += kShingle) {
        ++total;
        if (!seen.insert(text.substr(p, kShingle)).second)
            ++repeated;
    }
    return total ? double(repeated) / double(total) : 0.0;
}

std::int64_t estimateText(std::string_view text)
{
    if (text.empty())
        return 0;
    const auto base = static_cast<std::int64_t>((utf16Length(text) + 3) / 4);
    const auto codeBlocks = static_cast<std::int64_t>(countSubstr(text, "```") / 2);
    const auto urls = static_cast<std::int64_t>(countUrls(text));
    const auto repeatDiscount = static_cast<std::int64_t>(std::floor(double(base) * repetition(text) * 0.1));
    return std::max<std::int64_t>(0, base + codeBlocks * cl::tokens::kCodeBlockTokens - urls * cl::tokens::kUrlDiscount - repeatDiscount);
}

} // namespace ref

// ---- --check: both decoders must give the same LineInfo ----------------------------------------

std::string describe(const cc::LineInfo &l)
{
    std::string s = std::to_string(int(l.kind)) + "|" + std::to_string(l.sidechain) + std::to_string(l.isMeta)
                    + std::to_string(l.compactSummary) + std::to_string(l.toolResultsOnly) + std::to_string(l.hasParentKey) + "|"
                    + l.type + "|" + l.subtype + "|" + l.uuid + "|" + l.parentUuid + "|" + l.logicalParentUuid + "|" + l.agentId
                    + "|" + l.timestamp + "|" + l.apiId + "|" + l.model + "|meta=" + cl::json::dump(l.meta);
    if (l.usage)
        s += "|usage=" + std::to_string(l.usage->inputTokens) + "," + std::to_string(l.usage->outputTokens) + ","
             + std::to_string(l.usage->cacheCreationTokens) + "," + std::to_string(l.usage->cacheReadTokens);
    for (const auto &p : l.problems)
        s += "|problem " + std::to_string(int(p.severity)) + " " + p.text;
    for (const auto &b : l.blocks) {
        s += "|block " + std::string(cl::blockTypeName(b.type)) + " id=" + b.toolId + " name=" + b.toolName
             + " media=" + b.mediaType + " size=" + std::to_string(b.dataSize) + " err=" + std::to_string(b.isError)
             + " input=" + cl::json::dump(b.input) + " text=" + b.text;
        // nlohmann distinguishes signed / unsigned / float numbers: compare the types too.
        if (!b.input.is_null())
            s += " inputcbor=" + std::to_string(nlohmann::json::to_cbor(b.input).size());
    }
    return s;
}

// Mutations that exercise duplicate keys, wrong types, odd numbers and escapes, broken lines.
std::vector<std::string> mutations(const std::string &line)
{
    std::vector<std::string> out;
    auto replaceFirst = [&](std::string_view from, std::string_view to) {
        const auto p = line.find(from);
        if (p != std::string::npos)
            out.push_back(line.substr(0, p) + std::string(to) + line.substr(p + from.size()));
    };
    if (line.empty() || line.front() != '{' || line.back() != '}')
        return out;
    const std::string body = line.substr(1, line.size() - 2);
    out.push_back("{\"parentUuid\":5," + body + "}");
    out.push_back("{" + body + ",\"type\":\"weird\",\"big\":\"" + std::string(3000, 'x') + "\"}");
    out.push_back("{" + body + ",\"isMeta\":\"yes\",\"uuid\":[1],\"extra\":{\"a\":[1,2.5,-0,1e2,-3,18446744073709551615,"
                               "\"x\\u0001\\ud83d\\ude00\\t\\\"/\"],\"a\":{\"z\":null,\"b\":true}}}");
    out.push_back("{" + body + ",\"n\":18446744073709551616}");
    out.push_back("{" + body + ",\"toolUseResult\":{\"x\":1}}");
    out.push_back(line.substr(0, line.size() / 2));
    out.push_back(line.substr(0, line.size() / 3) + "\xff" + line.substr(line.size() / 3));
    replaceFirst("\"content\":", "\"content\":{\"a\":1},\"content\":");
    replaceFirst("\"content\":", "\"content\":7,\"x\":");
    replaceFirst("\"content\":\"", "\"content\":[\"s\",{\"text\":\"t\"},{\"type\":\"image\",\"source\":{\"data\":\"abc\"}},5],\"y\":\"");
    replaceFirst("\"message\":", "\"message\":[1],\"message2\":");
    replaceFirst("\"message\":{", "\"message\":{\"usage\":{\"input_tokens\":1.9,\"output_tokens\":\"3\"},\"id\":7,");
    replaceFirst("\"type\":\"text\",", "\"type\":\"text\",\"text\":5,");
    replaceFirst("\"type\":\"text\",", "\"type\":\"text\",\"type\":\"server_tool_use\",");
    replaceFirst("\"input\":{", "\"input\":{\"z\":1,\"z\":{\"y\":[true,null,1.5e300]},");
    replaceFirst("\"tool_use_id\":", "\"is_error\":1,\"content\":null,\"tool_use_id\":");
    replaceFirst("\"content\":\"", "\"content\":\"\\u0000\\b\\f\\r\\u001f\\u007f");
    replaceFirst("\"subtype\":\"", "\"compactMetadata\":{\"trigger\":\"x\"},\"preTokens\":5,\"level\":[1],\"subtype\":\"");
    replaceFirst("\"type\":\"system\"", "\"type\":\"system\",\"subtype\":\"compact_boundary\",\"content\":\"c\"");
    replaceFirst("\"type\":\"user\"", "\"type\":\"attachment\",\"attachment\":{\"type\":\"a\",\"type\":\"b\",\"v\":[{}]}");
    replaceFirst("\"type\":\"user\"", "\"type\":\"attachment\",\"attachment\":[1]");
    replaceFirst("\"type\":", "\"type\":null,\"type\":");
    replaceFirst("\"type\":", "\"x\":\"\\ud800\",\"type\":");
    return out;
}

// Estimates of every text of the loaded files and of random texts must equal the old ones exactly.
std::size_t checkTexts(const std::vector<std::string> &texts)
{
    std::size_t bad = 0;
    for (const auto &t : texts) {
        if (ref::repetition(t) != cl::tokens::repetition(t) || ref::estimateText(t) != cl::tokens::estimateText(t)) {
            if (++bad <= 5)
                std::printf("ESTIMATE MISMATCH (%zu bytes): rep %.17g vs %.17g, est %lld vs %lld: %.200s\n", t.size(),
                            ref::repetition(t), cl::tokens::repetition(t), (long long)ref::estimateText(t),
                            (long long)cl::tokens::estimateText(t), t.c_str());
        }
    }
    return bad;
}

std::vector<std::string> randomTexts()
{
    std::mt19937 rng(7);
    const std::vector<std::string> pieces{"h", "t", "p", "s", ":", "/", " ", "\n", "\t", "x", "`", "```", "http://",
                                          "https://", "\xC3\xA9", "\xE4\xBD\xA0", "\xF0\x9F\x98\x80", "\xF8", "\x80", "same line here\n", "abcdefgh",
                                          "  padded line  \n", "\r\n"};
    std::vector<std::string> out;
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        const int n = int(rng() % (i % 10 == 0 ? 2000 : 120));
        for (int k = 0; k < n; ++k)
            s += pieces[rng() % pieces.size()];
        out.push_back(std::move(s));
    }
    out.push_back(std::string(512, 'a'));
    out.push_back(std::string(100000, 'a') + "b");
    std::string many;
    for (int i = 0; i < 200000; ++i)
        many += "line number " + std::to_string(i % 150000) + "\n";
    out.push_back(many);
    return out;
}

int check(const std::vector<std::string> &files, bool textsOnly)
{
    cc::LineDecoder decoder;
    std::size_t compared = 0, mismatches = 0;
    for (const auto &path : files) {
        std::string bytes;
        if (textsOnly)
            break;
        if (!readFile(path, bytes)) {
            std::fprintf(stderr, "%s: cannot read\n", path.c_str());
            continue;
        }
        for (const auto &span : cl::json::splitLines(bytes)) {
            const std::string line = bytes.substr(span.offset, span.contentLength);
            std::vector<std::string> variants{line};
            for (auto &m : mutations(line))
                variants.push_back(std::move(m));
            for (const auto &v : variants) {
                for (bool last : {false, true}) {
                    cc::LineInfo a, b;
                    cc::decodeLine(v, last, a);
                    // In place with a following line to read ahead into, or (last line) without any.
                    const std::string padded = v + "\n" + std::string(64, '{');
                    decoder.decode(std::string_view(padded).substr(0, v.size()), last ? 0 : padded.size() - v.size(),
                                   last, b);
                    ++compared;
                    const std::string da = describe(a), db = describe(b);
                    if (da != db) {
                        if (++mismatches <= 10)
                            std::printf("MISMATCH %s:%u\n  line: %.300s\n  dom:  %.600s\n  simd: %.600s\n", path.c_str(),
                                        span.line, v.c_str(), da.c_str(), db.c_str());
                    }
                }
            }
        }
    }
    std::printf("check: %zu decodings compared, %zu mismatches\n", compared, mismatches);

    std::vector<std::string> texts = randomTexts();
    for (const auto &path : files) {
        cl::LoadOptions opts;
        const auto r = cl::loadFile(path, opts);
        if (!r.ok())
            continue;
        for (const auto &m : r.transcript->messages)
            for (const auto &b : m.blocks) {
                texts.push_back(b.text);
                if (!b.input.is_null())
                    texts.push_back(cl::json::dump(b.input));
            }
    }
    const std::size_t bad = checkTexts(texts);
    std::printf("check: %zu texts estimated, %zu estimate mismatches\n", texts.size(), bad);
    return mismatches || bad ? 1 : 0;
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    int runs = 3, threads = 2;
    bool doCheck = false, textsOnly = false;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc)
            runs = std::max(1, std::atoi(argv[++i]));
        else if (a == "--threads" && i + 1 < argc)
            threads = std::max(1, std::atoi(argv[++i]));
        else if (a == "--check")
            doCheck = true;
        else if (a == "--check-estimates")
            doCheck = textsOnly = true;
        else
            files.push_back(a);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: bench_load_profile [--runs N] [--threads T] FILE | --check[-estimates] FILE...\n");
        return 2;
    }
    if (doCheck)
        return check(files, textsOnly);
    int rc = 0;
    for (const auto &f : files)
        rc |= profile(f, runs, threads);
    return rc;
}
