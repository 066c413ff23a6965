// SPDX-License-Identifier: MIT
// Per-family token counts of a transcript; see tokens/counts.h for the rules and their reasons.
#include "core/tokens/counts.h"

#include "core/util/json.h"
#include "core/tokens/estimator.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <thread>

namespace cl::tokencount {

std::string_view familyName(Family f)
{
    switch (f) {
    case Family::OpenAI: return "openai";
    case Family::Claude: return "claude";
    case Family::Gemini: return "gemini";
    case Family::Unknown: return "unknown";
    }
    return "unknown";
}

std::string_view sourceName(Count::Source s)
{
    switch (s) {
    case Count::Exact: return "exact";
    case Count::Measured: return "measured";
    case Count::Estimated: return "estimated";
    }
    return "estimated";
}

namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string lower(std::string_view s)
{
    std::string r(s);
    for (char &c : r)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return r;
}

// A family recognised from a model name, Unknown otherwise. Provider prefixes ("openai/gpt-5",
// "anthropic/claude-...") are dropped first.
Family familyOfModel(std::string_view model)
{
    std::string m = lower(model);
    if (const auto slash = m.rfind('/'); slash != std::string::npos)
        m.erase(0, slash + 1);
    if (startsWith(m, "gpt-") || startsWith(m, "o1") || startsWith(m, "o3") || startsWith(m, "o4") || startsWith(m, "chatgpt"))
        return Family::OpenAI;
    if (startsWith(m, "claude"))
        return Family::Claude;
    if (startsWith(m, "gemini"))
        return Family::Gemini;
    return Family::Unknown;
}

std::string modelOf(const Transcript &t)
{
    for (const auto &m : t.messages)
        if (m.role == Role::Assistant && !m.model.empty() && familyOfModel(m.model) != Family::Unknown)
            return m.model;
    if (t.header.is_object())
        if (const auto it = t.header.find("model"); it != t.header.end() && it->is_string())
            return it->get<std::string>();
    return {};
}

std::uint64_t mixIn(std::uint64_t h, std::string_view s)
{
    // FNV-1a over the bytes, then the length: cheap next to BPE and enough to notice an edit.
    for (const char c : s)
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001B3ull;
    return (h ^ s.size()) * 0x100000001B3ull;
}

} // namespace

Family detectFamily(const Transcript &t)
{
    if (const Family f = familyOfModel(modelOf(t)); f != Family::Unknown)
        return f;
    switch (t.format) {
    case Format::OpenAIChat:
    case Format::OpenAIResponses:
    case Format::Codex:
    case Format::CopilotCli: return Family::OpenAI; // its own models are OpenAI's and Anthropic's; the model name decides first
    case Format::ClaudeCode:
    case Format::Anthropic: return Family::Claude;
    case Format::Gemini:
    case Format::GeminiCli: return Family::Gemini;
    case Format::QwenCode: return Family::Unknown; // Qwen models: no stated tokenizer here
    case Format::Unknown: break;
    }
    return Family::Unknown;
}

bpe::Encoding encodingForModel(std::string_view model)
{
    std::string m = lower(model);
    if (const auto slash = m.rfind('/'); slash != std::string::npos)
        m.erase(0, slash + 1);
    if (startsWith(m, "gpt-3.5"))
        return bpe::Encoding::Cl100kBase;
    // gpt-4, gpt-4-turbo, gpt-4-32k... are cl100k; gpt-4o and gpt-4.1 / gpt-4.5 are o200k.
    if (startsWith(m, "gpt-4") && !startsWith(m, "gpt-4o") && !startsWith(m, "gpt-4."))
        return bpe::Encoding::Cl100kBase;
    return bpe::Encoding::O200kBase;
}

std::vector<std::string_view> messageTexts(const Message &m, std::vector<std::string> &storage, int *nonText)
{
    std::vector<std::string_view> texts;
    storage.clear();
    storage.reserve(m.blocks.size());
    int other = 0;
    for (const auto &b : m.blocks) {
        switch (b.type) {
        case BlockType::Text:
        case BlockType::Thinking:
        case BlockType::Raw:
            texts.emplace_back(b.text);
            break;
        case BlockType::ToolResult: {
            // What the agent sends: a cleared result's placeholder, a long one cut to its limit.
            std::string sent;
            const std::string_view text = sentResultText(b, sent);
            if (!sent.empty() && text.data() == sent.data())
                storage.push_back(std::move(sent)); // listed after the loop
            else
                texts.emplace_back(text);
            break;
        }
        case BlockType::ToolUse:
            // The function name and its arguments as the API carries them (compact JSON).
            storage.push_back(b.toolName + (b.input.is_null() ? std::string("{}") : json::dump(b.input)));
            break;
        case BlockType::Image:
        case BlockType::Document:
        case BlockType::RedactedThinking:
            ++other;
            break;
        }
    }
    for (const auto &s : storage) // after the loop: storage no longer reallocates
        texts.emplace_back(s);
    if (nonText)
        *nonText = other;
    return texts;
}

std::int64_t exactMessage(const bpe::Tokenizer &tok, const Message &m, bool *approximate)
{
    std::vector<std::string> storage;
    int nonText = 0;
    std::int64_t total = kMessageFraming;
    for (const auto text : messageTexts(m, storage, &nonText))
        total += std::int64_t(text.size() > (1u << 20) ? tok.countParallel(text, 2) : tok.count(text));
    if (nonText)
        for (const auto &b : m.blocks)
            if (b.type == BlockType::Image || b.type == BlockType::Document || b.type == BlockType::RedactedThinking)
                total += tokens::estimateBlock(b);
    if (approximate)
        *approximate = nonText > 0;
    return total;
}

std::uint64_t contentHash(const Message &m)
{
    std::uint64_t h = 0xCBF29CE484222325ull;
    for (const auto &b : m.blocks) {
        h = (h ^ std::uint64_t(b.type)) * 0x100000001B3ull;
        h = mixIn(h, b.text);
        h = mixIn(h, b.toolName);
        if (!b.input.is_null())
            h = mixIn(h, json::dump(b.input));
        h = (h ^ b.dataSize) * 0x100000001B3ull;
    }
    return h;
}

std::int64_t CountCache::get(const bpe::Tokenizer &tok, const Transcript &t, std::size_t i, bool *approximate)
{
    if (m_entries.size() != t.messages.size())
        m_entries.resize(t.messages.size());
    Entry &e = m_entries[i];
    const std::uint64_t h = contentHash(t.messages[i]);
    if (e.tokens < 0 || e.hash != h || e.encoding != tok.encoding()) {
        e.tokens = exactMessage(tok, t.messages[i], &e.approximate);
        e.hash = h;
        e.encoding = tok.encoding();
        ++m_computed;
    }
    if (approximate)
        *approximate = e.approximate;
    return e.tokens;
}

void CountCache::fill(const bpe::Tokenizer &tok, const Transcript &t, int threads)
{
    const std::size_t n = t.messages.size();
    if (m_entries.size() != n)
        m_entries.resize(n);
    // Hashes first (cheap), then only the stale entries are counted, in parallel.
    std::vector<std::uint64_t> hashes(n);
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < n; ++i) {
        hashes[i] = contentHash(t.messages[i]);
        const Entry &e = m_entries[i];
        if (e.tokens < 0 || e.hash != hashes[i] || e.encoding != tok.encoding())
            todo.push_back(i);
    }
    threads = std::max(1, std::min(threads, int(todo.size() / 64) + 1));
    auto work = [&](int k) {
        for (std::size_t j = std::size_t(k); j < todo.size(); j += std::size_t(threads)) {
            Entry &e = m_entries[todo[j]];
            e.tokens = exactMessage(tok, t.messages[todo[j]], &e.approximate);
            e.hash = hashes[todo[j]];
            e.encoding = tok.encoding();
        }
    };
    if (threads == 1) {
        work(0);
    } else {
        std::vector<std::thread> pool;
        for (int k = 0; k < threads; ++k)
            pool.emplace_back(work, k);
        for (auto &th : pool)
            th.join();
    }
    m_computed += todo.size();
}

} // namespace cl::tokencount
