// SPDX-License-Identifier: MIT
// Tokenizer: loading the .tiktoken vocabularies, the process-wide cache, encode/count/countParallel.

#include "core/tokens/bpe.h"
#include "core/tokens/bpe_internal.h"

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#ifndef CL_BUILD_VOCAB_DIR
#define CL_BUILD_VOCAB_DIR ""
#endif

namespace cl::bpe {

using detail::kNoRank;
using detail::Rank;

struct Tokenizer::Impl {
    explicit Impl(Encoding e)
        : encoding(e)
        , splitter(e)
    {
    }
    Encoding encoding;
    detail::RankTable ranks;
    detail::Splitter splitter;
};

namespace {

int base64Value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

bool decodeBase64(std::string_view in, std::string &out)
{
    out.clear();
    if (in.empty() || in.size() % 4 != 0)
        return false;
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t padding = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        const auto c = static_cast<unsigned char>(in[i]);
        if (c == '=') {
            if (i + 2 < in.size())
                return false;
            ++padding;
            continue;
        }
        if (padding)
            return false;
        const int v = base64Value(c);
        if (v < 0)
            return false;
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    return !out.empty();
}

std::string exeDir()
{
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::mutex &cacheMutex()
{
    static std::mutex m;
    return m;
}

std::array<std::shared_ptr<const Tokenizer>, 2> &cache()
{
    static std::array<std::shared_ptr<const Tokenizer>, 2> c;
    return c;
}

} // namespace

std::string_view encodingName(Encoding e) { return e == Encoding::O200kBase ? "o200k_base" : "cl100k_base"; }

std::string vocabFileName(Encoding e) { return std::string(encodingName(e)) + ".tiktoken"; }

std::vector<std::string> vocabSearchDirs()
{
    std::vector<std::string> dirs;
    if (const char *env = std::getenv("CONTEXTLENS_VOCAB_DIR"); env && *env)
        dirs.emplace_back(env);
    if (const std::string dir = exeDir(); !dir.empty()) {
        dirs.push_back(dir + "/vocab");
        dirs.push_back(dir + "/../share/contextlens/vocab");
    }
    if (*CL_BUILD_VOCAB_DIR)
        dirs.emplace_back(CL_BUILD_VOCAB_DIR);
    return dirs;
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl)
    : m_d(std::move(impl))
{
}

Tokenizer::~Tokenizer() = default;

std::shared_ptr<const Tokenizer> Tokenizer::fromTiktoken(Encoding e, std::string_view contents, std::string *error)
{
    auto fail = [&](const std::string &why) -> std::shared_ptr<const Tokenizer> {
        if (error)
            *error = why;
        return nullptr;
    };
    auto impl = std::make_unique<Impl>(e);
    if (!impl->splitter.ok())
        return fail(impl->splitter.error());
    std::string bytes;
    std::size_t lineNo = 0;
    std::size_t pos = 0;
    while (pos < contents.size()) {
        std::size_t eol = contents.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = contents.size();
        std::string_view line = contents.substr(pos, eol - pos);
        pos = eol + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty())
            continue;
        const std::size_t space = line.find(' ');
        const std::string where = "line " + std::to_string(lineNo) + ": ";
        if (space == std::string_view::npos)
            return fail(where + "expected \"<base64> <rank>\"");
        if (!decodeBase64(line.substr(0, space), bytes))
            return fail(where + "invalid base64 token");
        const std::string_view num = line.substr(space + 1);
        if (num.empty() || num.size() > 9 || num.find_first_not_of("0123456789") != std::string_view::npos)
            return fail(where + "invalid rank");
        const auto rank = static_cast<Rank>(std::stoul(std::string(num)));
        if (!impl->ranks.insert(bytes, rank))
            return fail(where + "rank " + std::string(num) + " appears twice");
    }
    if (!impl->ranks.finish())
        return fail("the same token bytes appear under two ranks");
    // Every byte must be a token of its own, or a piece could be left without an encoding.
    for (int b = 0; b < 256; ++b) {
        const char c = static_cast<char>(b);
        if (impl->ranks.find(&c, 1) == kNoRank)
            return fail("byte " + std::to_string(b) + " has no token");
    }
    return std::shared_ptr<const Tokenizer>(new Tokenizer(std::move(impl)));
}

std::shared_ptr<const Tokenizer> Tokenizer::loadFile(Encoding e, const std::string &path, std::string *error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        if (error)
            *error = "cannot open " + path + " (run scripts/fetch-vocab.sh to install the vocabularies)";
        return nullptr;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    std::string why;
    auto tok = fromTiktoken(e, ss.str(), &why);
    if (!tok && error)
        *error = path + ": " + why;
    return tok;
}

std::shared_ptr<const Tokenizer> Tokenizer::load(Encoding e, std::string *error)
{
    const std::size_t slot = e == Encoding::O200kBase ? 0 : 1;
    // One lock for the whole load: two threads asking at once must not parse the file twice.
    std::lock_guard lock(cacheMutex());
    if (cache()[slot])
        return cache()[slot];
    const std::string name = vocabFileName(e);
    std::string tried;
    for (const std::string &dir : vocabSearchDirs()) {
        const std::string path = dir + "/" + name;
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec)) {
            tried += (tried.empty() ? "" : ", ") + dir;
            continue;
        }
        std::string why;
        auto tok = loadFile(e, path, &why);
        if (!tok) {
            if (error)
                *error = why;
            return nullptr;
        }
        cache()[slot] = tok;
        return tok;
    }
    if (error)
        *error = name + " not found (looked in: " + tried
                 + "); run scripts/fetch-vocab.sh DIR and point CONTEXTLENS_VOCAB_DIR at DIR";
    return nullptr;
}

bool available(Encoding e) { return Tokenizer::load(e) != nullptr; }

Encoding Tokenizer::encoding() const { return m_d->encoding; }

std::size_t Tokenizer::vocabSize() const { return m_d->ranks.size(); }

std::vector<std::uint32_t> Tokenizer::encode(std::string_view text) const
{
    std::vector<std::uint32_t> ids;
    ids.reserve(text.size() / 4 + 4);
    const auto &ranks = m_d->ranks;
    auto sink = [&ids](Rank r) { ids.push_back(r); };
    m_d->splitter.forEach(text, [&](const char *p, std::size_t n) { detail::encodePiece(ranks, p, n, sink); });
    return ids;
}

std::size_t Tokenizer::count(std::string_view text) const
{
    std::size_t total = 0;
    const auto &ranks = m_d->ranks;
    m_d->splitter.forEach(text, [&](const char *p, std::size_t n) {
        total += detail::encodePiece(ranks, p, n, detail::NullSink{});
    });
    return total;
}

std::vector<std::size_t> Tokenizer::splitPoints(std::string_view text, int parts) const
{
    return m_d->splitter.cutPoints(text, parts);
}

std::size_t Tokenizer::countParallel(std::string_view text, int threads) const
{
    // Below this a thread costs more than it saves.
    constexpr std::size_t kMinChunk = 64 * 1024;
    if (threads < 2 || text.size() < 2 * kMinChunk)
        return count(text);
    threads = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads), text.size() / kMinChunk));
    const std::vector<std::size_t> cuts = splitPoints(text, threads);
    if (cuts.empty())
        return count(text);
    std::vector<std::size_t> bounds{0};
    bounds.insert(bounds.end(), cuts.begin(), cuts.end());
    bounds.push_back(text.size());
    const std::size_t chunks = bounds.size() - 1;
    std::vector<std::size_t> results(chunks, 0);
    std::vector<std::thread> workers;
    workers.reserve(chunks - 1);
    for (std::size_t i = 1; i < chunks; ++i) {
        workers.emplace_back([&, i] { results[i] = count(text.substr(bounds[i], bounds[i + 1] - bounds[i])); });
    }
    results[0] = count(text.substr(0, bounds[1]));
    std::size_t total = results[0];
    for (std::size_t i = 1; i < chunks; ++i) {
        workers[i - 1].join();
        total += results[i];
    }
    return total;
}

std::string Tokenizer::decode(const std::vector<std::uint32_t> &ids) const
{
    std::string out;
    for (std::uint32_t id : ids)
        out.append(m_d->ranks.bytes(id));
    return out;
}

std::vector<std::uint32_t> Tokenizer::mergeSimple(std::string_view piece) const
{
    std::vector<std::uint32_t> ids;
    detail::mergeSimple(m_d->ranks, piece.data(), piece.size(), [&ids](Rank r) { ids.push_back(r); });
    return ids;
}

std::vector<std::uint32_t> Tokenizer::mergeHeap(std::string_view piece) const
{
    std::vector<std::uint32_t> ids;
    detail::mergeHeap(m_d->ranks, piece.data(), piece.size(), [&ids](Rank r) { ids.push_back(r); });
    return ids;
}

std::vector<std::string_view> Tokenizer::split(std::string_view text, bool regexOnly) const
{
    std::vector<std::string_view> pieces;
    m_d->splitter.forEach(
        text, [&pieces](const char *p, std::size_t n) { pieces.emplace_back(p, n); }, !regexOnly);
    return pieces;
}

std::shared_ptr<const Tokenizer> loadVocabulary(Encoding e, const std::string &dir, std::string &error)
{
    std::shared_ptr<const Tokenizer> tok = dir.empty() ? Tokenizer::load(e, &error)
                                                       : Tokenizer::loadFile(e, dir + "/" + vocabFileName(e), &error);
    if (!tok) {
        if (error.empty())
            error = vocabFileName(e) + " could not be loaded";
        if (error.find("fetch-vocab.sh") == std::string::npos)
            error += "; run scripts/fetch-vocab.sh DIR and point CONTEXTLENS_VOCAB_DIR at DIR";
    }
    return tok;
}

} // namespace cl::bpe
