// SPDX-License-Identifier: MIT
#pragma once

// Exact byte-pair-encoding token counter for OpenAI's o200k_base and cl100k_base, reproducing
// tiktoken's `encode_ordinary`: the text is split with tiktoken's own regex (run by PCRE2 with JIT;
// for o200k_base, ASCII text is split by the same rules hand-coded and PCRE2 runs only on the rest),
// each piece is looked up whole in the rank table and otherwise merged pair by pair, lowest rank first
// (leftmost on ties), exactly like tiktoken's _byte_pair_merge.
//
// Special tokens such as <|endoftext|> are ordinary text here (encode_ordinary behaviour): a transcript
// that quotes them is counted as the model would see the quoted characters.
//
// Invalid UTF-8 (tiktoken cannot see it: Python strings are always valid): the regex never matches an
// invalid sequence (PCRE2_MATCH_INVALID_UTF), so each maximal run of bytes between two regex matches
// becomes a piece of its own and is byte-pair encoded like any other piece. Every input byte is thus
// covered and decode(encode(x)) == x for any x; nothing crashes or throws.
//
// The vocabularies (the official .tiktoken files) are not in the repository: scripts/fetch-vocab.sh
// installs them. load() looks in $CONTEXTLENS_VOCAB_DIR, <exe dir>/vocab, <exe dir>/../share/contextlens/vocab
// and finally the build tree's vocab/ directory.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cl::bpe {

enum class Encoding {
    O200kBase,
    Cl100kBase
};

std::string_view encodingName(Encoding e); // "o200k_base"
std::string vocabFileName(Encoding e);     // "o200k_base.tiktoken"
// Directories load() searches, in order (entries that are not set are left out).
std::vector<std::string> vocabSearchDirs();

class Tokenizer;
// The tokenizer for `e` from `dir` (uncached), or with an empty dir the process-wide one from the
// search directories (Tokenizer::load). On failure returns nullptr and `error` names the file and
// says how to install the vocabularies: one wording for the CLI and the GUI.
std::shared_ptr<const Tokenizer> loadVocabulary(Encoding e, const std::string &dir, std::string &error);

class Tokenizer
{
public:
    // The process-wide tokenizer for `e`, loaded on first use from the first search directory that has
    // the file. Thread-safe. Returns nullptr (and fills *error) when no vocabulary is found or it is
    // malformed; a later call tries again, so fetching the files while running works.
    static std::shared_ptr<const Tokenizer> load(Encoding e, std::string *error = nullptr);
    // Loads one specific .tiktoken file, uncached (tests, tools).
    static std::shared_ptr<const Tokenizer> loadFile(Encoding e, const std::string &path,
                                                     std::string *error = nullptr);
    // Builds from the bytes of a .tiktoken file (tests use small synthetic vocabularies).
    static std::shared_ptr<const Tokenizer> fromTiktoken(Encoding e, std::string_view fileContents,
                                                         std::string *error = nullptr);

    ~Tokenizer();
    Tokenizer(const Tokenizer &) = delete;
    Tokenizer &operator=(const Tokenizer &) = delete;

    Encoding encoding() const;
    std::size_t vocabSize() const;

    std::vector<std::uint32_t> encode(std::string_view text) const;
    // Same number as encode(text).size(), without building the id vector.
    std::size_t count(std::string_view text) const;
    // count() on up to `threads` threads; the text is only cut where the regex is guaranteed to start a
    // new piece, so the result always equals count(text).
    std::size_t countParallel(std::string_view text, int threads) const;
    // Concatenated bytes of the tokens; unknown ids are skipped.
    std::string decode(const std::vector<std::uint32_t> &ids) const;

    // Internals exposed for tests: the byte offsets where countParallel may cut `text`, choosing at
    // most `parts - 1` of them near equal shares.
    std::vector<std::size_t> splitPoints(std::string_view text, int parts) const;
    // Encodes one pre-split piece with the quadratic (simple) or heap merge, bypassing the regex and
    // the whole-piece lookup; both must agree with encode() on any piece.
    std::vector<std::uint32_t> mergeSimple(std::string_view piece) const;
    std::vector<std::uint32_t> mergeHeap(std::string_view piece) const;
    // The pre-tokenizer's pieces of `text`. o200k_base splits ASCII with hand-coded rules and asks
    // PCRE2 only elsewhere; regexOnly runs PCRE2 on everything. Both must give the same pieces.
    std::vector<std::string_view> split(std::string_view text, bool regexOnly = false) const;

    struct Impl;

private:
    explicit Tokenizer(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_d;
};

// True when load(e) would succeed (it loads and caches the vocabulary).
bool available(Encoding e);

} // namespace cl::bpe
