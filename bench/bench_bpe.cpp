// SPDX-License-Identifier: MIT
// Throughput of the exact BPE counter on deterministic generated text (prose, code, JSON, CJK,
// base64; about 20 MB in all), single-threaded and on two threads, for both encodings.
// Columns: MB/s by wall clock on one thread, by that thread's CPU time, and by wall clock on two threads.
// Usage: bench_bpe [MB total, default 20]   (needs the vocabularies: scripts/fetch-vocab.sh)
//
// Two modes for scripts/bench-tokenizer.sh, which compares against gpt-tokenizer (node) on one file:
//   bench_bpe --write-text FILE [MB [KIND]]  writes the same five kinds of text, interleaved in ~64 KB
//                                         blocks cut at line ends (so two threads get similar work);
//                                         KIND prose, code, json, cjk or base64 writes that one alone
//   bench_bpe --count FILE [THREADS]      loads o200k_base from its file (uncached) and counts FILE;
//                                         prints "tokens=N load_ms=.. count_ms=.. total_ms=.. cpu_ms=.."
//                                         (the file is read before the clock starts, as in the node run)

#include "core/util/allocator.h"
#include "core/tokens/bpe.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace cl::bpe;

namespace {

const std::vector<std::string> kWords = {
    "the", "context", "window", "model", "token", "agent", "tool", "result", "file", "we", "should", "check",
    "whether", "this", "function", "returns", "value", "before", "running", "tests", "because", "it's", "likely",
    "that", "error", "message", "comes", "from", "parser", "and", "not", "configuration", "Claude", "OpenAI",
    "transcript", "compression", "summary", "I'll", "look", "at", "implementation", "again", "then", "update"};

std::string prose(std::size_t bytes, std::mt19937 &rng)
{
    std::string out;
    int inSentence = 0;
    while (out.size() < bytes) {
        std::string w = kWords[rng() % kWords.size()];
        if (inSentence == 0)
            w[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(w[0])));
        out += w;
        if (++inSentence > 6 + static_cast<int>(rng() % 12)) {
            out += rng() % 5 == 0 ? ".\n\n" : ". ";
            inSentence = 0;
        } else {
            out += rng() % 9 == 0 ? ", " : " ";
        }
    }
    return out;
}

std::string code(std::size_t bytes, std::mt19937 &rng)
{
    std::string out;
    int n = 0;
    while (out.size() < bytes) {
        const std::string name = kWords[rng() % kWords.size()];
        out += "static int " + name + "_" + std::to_string(n++) + "(const std::vector<int> &values, int limit)\n{\n";
        out += "    // " + prose(60, rng) + "\n";
        out += "    for (std::size_t i = 0; i < values.size(); ++i) {\n";
        out += "        if (values[i] > limit && " + name + " != nullptr)\n            return values[i] * "
               + std::to_string(rng() % 1000) + ";\n    }\n    return -1;\n}\n\n";
    }
    return out;
}

std::string json(std::size_t bytes, std::mt19937 &rng)
{
    std::string out = "[";
    int n = 0;
    while (out.size() < bytes) {
        out += "{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_" + std::to_string(rng()) + "\",\"id\":"
               + std::to_string(n++) + ",\"content\":\"" + prose(80, rng) + "\",\"is_error\":false},\n";
    }
    return out + "{}]";
}

std::string cjk(std::size_t bytes, std::mt19937 &rng)
{
    std::string out;
    while (out.size() < bytes) {
        // CJK unified ideographs U+4E00..U+9FFF, with ideographic punctuation and newlines
        const char32_t c = 0x4E00 + rng() % 0x5200;
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
        const unsigned r = rng() % 40;
        if (r == 0)
            out += "\xe3\x80\x82\n"; // 。 and a newline
        else if (r == 1)
            out += "\xef\xbc\x8c"; // ，
    }
    return out;
}

std::string base64(std::size_t bytes, std::mt19937 &rng)
{
    static const char *abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    while (out.size() < bytes) {
        for (int i = 0; i < 76; ++i)
            out += abc[rng() % 64];
        out += '\n'; // MIME line length, as in pasted attachments
    }
    return out;
}

// CPU time of the calling thread: on a shared, busy machine wall time understates the speed.
double threadCpu()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds(const std::chrono::steady_clock::time_point &t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the whole process (user + system, all threads).
double processCpu()
{
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
           + static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

struct Sample {
    const char *name;
    std::string text;
};

std::vector<Sample> makeSamples(double totalMb)
{
    const auto share = static_cast<std::size_t>(totalMb * 1e6 / 5);
    std::mt19937 rng(42);
    return {{"prose", prose(share, rng)},
            {"code", code(share, rng)},
            {"json", json(share, rng)},
            {"cjk", cjk(share, rng)},
            {"base64", base64(share, rng)}};
}

// The samples interleaved in blocks of about 64 KB, each cut just after a '\n' (never inside a
// UTF-8 sequence), so any stretch of the file holds every kind of text.
std::string mixedText(double totalMb)
{
    const std::vector<Sample> samples = makeSamples(totalMb);
    std::vector<std::size_t> pos(samples.size(), 0);
    std::string out;
    for (bool more = true; more;) {
        more = false;
        for (std::size_t k = 0; k < samples.size(); ++k) {
            const std::string &t = samples[k].text;
            if (pos[k] >= t.size())
                continue;
            std::size_t end = t.find('\n', std::min(pos[k] + 64 * 1024, t.size()));
            end = end == std::string::npos ? t.size() : end + 1;
            out.append(t, pos[k], end - pos[k]);
            pos[k] = end;
            more = true;
        }
    }
    return out;
}

// `kind` is "mixed" or one of the five generators alone.
int writeText(const char *path, double totalMb, std::string_view kind)
{
    std::string out;
    std::mt19937 rng(42);
    const auto bytes = static_cast<std::size_t>(totalMb * 1e6);
    if (kind == "mixed")
        out = mixedText(totalMb);
    else if (kind == "prose")
        out = prose(bytes, rng);
    else if (kind == "code")
        out = code(bytes, rng);
    else if (kind == "json")
        out = json(bytes, rng);
    else if (kind == "cjk")
        out = cjk(bytes, rng);
    else if (kind == "base64")
        out = base64(bytes, rng);
    else {
        std::fprintf(stderr, "unknown kind of text: %s\n", std::string(kind).c_str());
        return 1;
    }
    std::ofstream f(path, std::ios::binary);
    f.write(out.data(), static_cast<std::streamsize>(out.size()));
    if (!f) {
        std::fprintf(stderr, "cannot write %s\n", path);
        return 1;
    }
    std::printf("wrote %s: %zu bytes\n", path, out.size());
    return 0;
}

int countFile(const char *path, int threads)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "cannot open %s\n", path);
        return 1;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    // The first search directory holding the file, loaded uncached: the load is part of the timing.
    const std::string name = vocabFileName(Encoding::O200kBase);
    std::string dir;
    for (const std::string &d : vocabSearchDirs()) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(d + "/" + name, ec)) {
            dir = d;
            break;
        }
    }
    if (dir.empty()) {
        std::fprintf(stderr, "%s not found: run scripts/fetch-vocab.sh DIR, CONTEXTLENS_VOCAB_DIR=DIR\n", name.c_str());
        return 1;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = processCpu();
    std::string error;
    const auto tok = loadVocabulary(Encoding::O200kBase, dir, error);
    if (!tok) {
        std::fprintf(stderr, "%s\n", error.c_str());
        return 1;
    }
    const double loaded = seconds(t0);
    const std::size_t n = threads > 1 ? tok->countParallel(text, threads) : tok->count(text);
    const double total = seconds(t0);
    const double cpu = processCpu() - c0;
    std::printf("tokens=%zu load_ms=%.1f count_ms=%.1f total_ms=%.1f cpu_ms=%.1f\n", n, loaded * 1000,
                (total - loaded) * 1000, total * 1000, cpu * 1000);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    if (argc >= 3 && std::strcmp(argv[1], "--write-text") == 0)
        return writeText(argv[2], argc > 3 ? std::atof(argv[3]) : 10.0, argc > 4 ? argv[4] : "mixed");
    if (argc >= 3 && std::strcmp(argv[1], "--count") == 0)
        return countFile(argv[2], argc > 3 ? std::atoi(argv[3]) : 1);
    const double totalMb = argc > 1 ? std::atof(argv[1]) : 20.0;
    std::vector<Sample> samples = makeSamples(totalMb);
    std::printf("%-12s %-8s %7s %10s %10s %10s %10s\n", "encoding", "text", "MB", "tokens", "1thr wall", "1thr cpu",
                "2thr wall");
    int failures = 0;
    for (Encoding e : {Encoding::O200kBase, Encoding::Cl100kBase}) {
        std::string error;
        const auto t0 = std::chrono::steady_clock::now();
        auto tok = Tokenizer::load(e, &error);
        if (!tok) {
            std::fprintf(stderr, "%s\n", error.c_str());
            return 1;
        }
        std::printf("%s loaded in %.0f ms\n", std::string(encodingName(e)).c_str(), seconds(t0) * 1000);
        double bytes = 0, time1 = 0, cpu1 = 0, time2 = 0;
        for (const Sample &s : samples) {
            auto t = std::chrono::steady_clock::now();
            const double c0 = threadCpu();
            const std::size_t n1 = tok->count(s.text);
            const double c1 = threadCpu() - c0;
            const double s1 = seconds(t);
            t = std::chrono::steady_clock::now();
            const std::size_t n2 = tok->countParallel(s.text, 2);
            const double s2 = seconds(t);
            if (n1 != n2) {
                std::fprintf(stderr, "MISMATCH %s: count %zu, countParallel %zu\n", s.name, n1, n2);
                ++failures;
            }
            const double mb = s.text.size() / 1e6;
            bytes += mb;
            time1 += s1;
            cpu1 += c1;
            time2 += s2;
            std::printf("%-12s %-8s %7.2f %10zu %10.1f %10.1f %10.1f\n", std::string(encodingName(e)).c_str(), s.name,
                        mb, n1, mb / s1, mb / c1, mb / s2);
        }
        std::printf("%-12s %-8s %7.2f %10s %10.1f %10.1f %10.1f\n\n", std::string(encodingName(e)).c_str(), "all",
                    bytes, "", bytes / time1, bytes / cpu1, bytes / time2);
    }
    return failures ? 2 : 0;
}
