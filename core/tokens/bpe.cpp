// SPDX-License-Identifier: MIT
// Tokenizer: loading the .tiktoken vocabularies, the process-wide cache, encode/count/countParallel.

#include "core/tokens/bpe.h"
#include "core/tokens/bpe_internal.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Base64 digit values; -1 for anything else ('=' is handled apart).
struct Base64Table {
    signed char v[256];
    constexpr Base64Table()
        : v()
    {
        for (int c = 0; c < 256; ++c)
            v[c] = -1;
        for (int i = 0; i < 26; ++i) {
            v['A' + i] = static_cast<signed char>(i);
            v['a' + i] = static_cast<signed char>(26 + i);
        }
        for (int i = 0; i < 10; ++i)
            v['0' + i] = static_cast<signed char>(52 + i);
        v[static_cast<unsigned char>('+')] = 62;
        v[static_cast<unsigned char>('/')] = 63;
    }
};
constexpr Base64Table kBase64;

// Decodes padded base64 into out[0..], which has room for in.size() / 4 * 3 bytes. Returns the
// decoded length, or 0 when `in` is not valid, padded base64 of at least one byte.
std::size_t decodeBase64(std::string_view in, char *out)
{
    const std::size_t n = in.size();
    if (n == 0 || n % 4 != 0)
        return 0;
    const auto *s = reinterpret_cast<const unsigned char *>(in.data());
    std::size_t o = 0;
    for (std::size_t i = 0; i < n; i += 4) {
        const int a = kBase64.v[s[i]], b = kBase64.v[s[i + 1]];
        int c = kBase64.v[s[i + 2]], d = kBase64.v[s[i + 3]];
        std::size_t bytes = 3;
        if (i + 4 == n && s[i + 3] == '=') { // padding, only in the last group
            bytes = s[i + 2] == '=' ? 1 : 2;
            d = 0;
            if (bytes == 1)
                c = 0;
        }
        if ((a | b | c | d) < 0)
            return 0;
        const auto v = static_cast<std::uint32_t>(a << 18 | b << 12 | c << 6 | d);
        out[o] = static_cast<char>(v >> 16);
        if (bytes > 1)
            out[o + 1] = static_cast<char>(v >> 8);
        if (bytes > 2)
            out[o + 2] = static_cast<char>(v);
        o += bytes;
    }
    return o;
}

// A whole file mapped read-only: the page cache's pages are used as they are, instead of copying the
// 3.6 MB of o200k_base into fresh memory (10% of the load).
class MappedFile
{
public:
    explicit MappedFile(const std::string &path)
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && st.st_size >= 0) {
            m_size = static_cast<std::size_t>(st.st_size);
            m_ok = m_size == 0;
#ifdef MAP_POPULATE
            constexpr int flags = MAP_PRIVATE | MAP_POPULATE; // one call instead of a fault per page
#else
            constexpr int flags = MAP_PRIVATE;
#endif
            if (m_size != 0) {
                m_data = ::mmap(nullptr, m_size, PROT_READ, flags, fd, 0);
                m_ok = m_data != MAP_FAILED;
            }
        }
        ::close(fd);
    }
    ~MappedFile()
    {
        if (m_size != 0 && m_ok)
            ::munmap(m_data, m_size);
    }
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    bool ok() const { return m_ok; }
    std::string_view contents() const
    {
        return m_size != 0 && m_ok ? std::string_view(static_cast<const char *>(m_data), m_size) : std::string_view();
    }

private:
    void *m_data = nullptr;
    std::size_t m_size = 0;
    bool m_ok = false;
};

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
    impl->ranks.reserveFor(contents.size());
    std::string bytes; // decoded token, reused
    std::size_t lineNo = 0;
    const char *p = contents.data();
    const char *const end = p + contents.size();
    while (p < end) {
        const char *eol = static_cast<const char *>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
        if (!eol)
            eol = end;
        std::string_view line(p, static_cast<std::size_t>(eol - p));
        p = eol + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.empty())
            continue;
        const std::size_t space = line.find(' ');
        if (space == std::string_view::npos)
            return fail("line " + std::to_string(lineNo) + ": expected \"<base64> <rank>\"");
        if (bytes.size() < space)
            bytes.resize(space);
        const std::size_t len = decodeBase64(line.substr(0, space), bytes.data());
        if (len == 0)
            return fail("line " + std::to_string(lineNo) + ": invalid base64 token");
        const std::string_view num = line.substr(space + 1);
        Rank rank = 0;
        bool digits = !num.empty() && num.size() <= 9;
        for (const char c : num) {
            digits = digits && c >= '0' && c <= '9';
            rank = rank * 10 + static_cast<Rank>(c - '0');
        }
        if (!digits)
            return fail("line " + std::to_string(lineNo) + ": invalid rank");
        if (!impl->ranks.insert(std::string_view(bytes.data(), len), rank))
            return fail("line " + std::to_string(lineNo) + ": rank " + std::string(num) + " appears twice");
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
    const MappedFile file(path);
    if (!file.ok()) {
        if (error)
            *error = "cannot open " + path + " (run scripts/fetch-vocab.sh to install the vocabularies)";
        return nullptr;
    }
    std::string why;
    auto tok = fromTiktoken(e, file.contents(), &why);
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
