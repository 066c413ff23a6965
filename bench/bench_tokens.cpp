// SPDX-License-Identifier: MIT
// Token estimator throughput, single-threaded (best of five passes), on generated prose, code and
// JSON, each estimated in the pieces the loader hands it (one block or one line at a time).
#include "core/util/allocator.h"
#include "core/generator/generator.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Corpus {
    const char *name;
    std::vector<std::string> pieces;
    std::size_t bytes = 0;
    void add(std::string s)
    {
        bytes += s.size();
        pieces.push_back(std::move(s));
    }
};

} // namespace

int main(int argc, char **argv)
{
    cl::tuneAllocator(); // before the first large allocation
    const bool markdown = argc > 1 && std::strcmp(argv[1], "--markdown") == 0;
    Corpus prose{"prose (assistant text, thinking)", {}}, code{"code (tool results: files, diffs, output)", {}},
        jsonl{"JSON (Claude Code JSONL lines)", {}};
    for (std::uint64_t seed = 1; prose.bytes < 4'000'000 || code.bytes < 16'000'000; ++seed) {
        cl::gen::Options o;
        o.format = cl::Format::Anthropic;
        o.targetBytes = 4'000'000;
        o.seed = seed;
        const cl::Transcript t = cl::gen::generateTranscript(o);
        for (const auto &m : t.messages)
            for (const auto &b : m.blocks) {
                if ((b.type == cl::BlockType::Text || b.type == cl::BlockType::Thinking) && m.role == cl::Role::Assistant)
                    prose.add(b.text);
                else if (b.type == cl::BlockType::ToolResult && code.bytes < 16'000'000)
                    code.add(b.text);
            }
    }
    {
        cl::gen::Options o;
        o.targetBytes = 16'000'000;
        const std::string bytes = cl::gen::generate(o);
        std::size_t pos = 0;
        while (pos < bytes.size()) {
            std::size_t nl = bytes.find('\n', pos);
            nl = nl == std::string::npos ? bytes.size() : nl;
            jsonl.add(bytes.substr(pos, nl - pos));
            pos = nl + 1;
        }
    }
    if (markdown) {
        std::printf("| text | MB | pieces | ms | MB/s | tokens | bytes/token |\n|---|---:|---:|---:|---:|---:|---:|\n");
    }
    for (Corpus *c : {&prose, &code, &jsonl}) {
        // Best of five passes: one pass takes a few milliseconds, and this machine's noise is larger.
        double ms = 1e18;
        std::int64_t tokens = 0;
        for (int run = 0; run < 5; ++run) {
            const auto t0 = std::chrono::steady_clock::now();
            tokens = 0;
            for (const auto &p : c->pieces)
                tokens += cl::tokens::estimateText(p);
            ms = std::min(ms, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        const double mb = double(c->bytes) / (1024.0 * 1024.0);
        if (markdown)
            std::printf("| %s | %.1f | %zu | %.0f | %.0f | %lld | %.2f |\n", c->name, mb, c->pieces.size(), ms, mb / (ms / 1000.0),
                        static_cast<long long>(tokens), double(c->bytes) / double(std::max<std::int64_t>(1, tokens)));
        else
            std::printf("%s: %.1f MB in %zu pieces, %.0f ms, %.0f MB/s, %lld tokens (%.2f bytes/token)\n", c->name, mb,
                        c->pieces.size(), ms, mb / (ms / 1000.0), static_cast<long long>(tokens),
                        double(c->bytes) / double(std::max<std::int64_t>(1, tokens)));
    }
    return 0;
}
