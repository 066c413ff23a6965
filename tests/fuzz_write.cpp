// SPDX-License-Identifier: MIT
// A mutation fuzzer for the write path, run by CTest for a bounded time (and longer by scripts/fuzz.sh):
// takes the samples and the project's own inputs, mutates them (bytes flipped, cut, lines dropped or
// repeated, a key's value given another type, NUL bytes, UTF-16, huge strings), loads each mutant,
// writes it through every writer and a random strategy's export, and now and then runs the CLI's
// convert and compact on it. Any exception that escapes, a write that fails, an exit code outside
// 0/1/2 or an output missing after a successful command ends the run with exit 1; a crash ends it by
// itself. The input being tried is kept in fuzz-current.bin (working directory) for reproduction.
//
// Usage: fuzz_write [--seconds N] [--seed S] DIR...    (CL_FUZZ_SECONDS overrides --seconds)

#include "cli/cli.h"
#include "core/io/loader.h"
#include "core/strategy/strategy.h"
#include "core/strategies/registry.h"

#include "write_paths.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

using namespace cl;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> corpus(const std::vector<std::string> &dirs)
{
    std::vector<std::string> out;
    for (const auto &dir : dirs) {
        std::error_code ec;
        for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            const std::string p = it->path().string();
            if (!it->is_regular_file() || p.find("/schema/") != std::string::npos
                || (it->path().extension() != ".jsonl" && it->path().extension() != ".json"))
                continue;
            std::ifstream f(p, std::ios::binary);
            std::stringstream ss;
            ss << f.rdbuf();
            out.push_back(ss.str());
        }
    }
    return out;
}

class Mutator
{
public:
    explicit Mutator(std::uint64_t seed)
        : m_rng(seed)
    {}
    std::size_t pick(std::size_t n) { return n ? std::size_t(m_rng() % n) : 0; }

    std::string mutate(std::string s)
    {
        const int rounds = 1 + int(pick(3));
        for (int r = 0; r < rounds; ++r)
            s = once(std::move(s));
        return s;
    }

private:
    std::string once(std::string s)
    {
        switch (pick(10)) {
        case 0: // bytes flipped
            for (int k = 0, n = 1 + int(pick(8)); k < n && !s.empty(); ++k)
                s[pick(s.size())] = char(m_rng());
            return s;
        case 1: // cut anywhere
            s.resize(pick(s.size() + 1));
            return s;
        case 2: { // a line dropped or repeated
            const auto lines = json::splitLines(s);
            if (lines.empty())
                return s;
            const auto &l = lines[pick(lines.size())];
            if (pick(2))
                s.erase(l.offset, l.length);
            else
                s.insert(l.offset, s.substr(l.offset, l.length));
            return s;
        }
        case 3: // NUL or control bytes
            s.insert(pick(s.size() + 1), std::string(1 + pick(3), char(pick(3) ? 0 : pick(32))));
            return s;
        case 4: { // a long string value somewhere inside a string
            const std::size_t q = s.find('"', pick(s.size() + 1));
            if (q != std::string::npos)
                s.insert(q + 1, std::string(20000 + pick(100000), 'x'));
            return s;
        }
        case 5: { // UTF-16, now and then
            if (pick(4))
                return typeMutation(std::move(s));
            std::string u16 = pick(2) ? std::string("\xFF\xFE") : std::string();
            for (const char c : s) {
                u16 += c;
                u16 += '\0';
            }
            return u16;
        }
        default:
            return typeMutation(std::move(s));
        }
    }

    // A random key's value (one occurrence or all) replaced by a value of another type.
    std::string typeMutation(std::string s)
    {
        test::JsonUnits units = test::splitUnits(s);
        std::vector<std::string> keys;
        for (auto &p : units.parsed) {
            if (p.is_discarded())
                continue;
            std::string path;
            test::walkValues(p, path, [&](const std::string &k, test::ojson &) { keys.push_back(k); });
        }
        if (keys.empty())
            return s;
        const std::string key = keys[pick(keys.size())];
        const auto &values = test::replacementValues();
        const test::ojson value = values[pick(values.size())];
        const bool all = pick(2);
        std::size_t seen = 0;
        const std::size_t target = pick(keys.size());
        for (std::size_t i = 0; i < units.parsed.size(); ++i) {
            if (units.parsed[i].is_discarded())
                continue;
            bool changed = false;
            std::string path;
            test::walkValues(units.parsed[i], path, [&](const std::string &k, test::ojson &v) {
                if (k == key && (all || seen++ == target % 4)) {
                    v = value;
                    changed = true;
                }
            });
            if (changed)
                units.raw[i] = units.parsed[i].dump(units.document ? 1 : -1);
        }
        return test::joinUnits(units);
    }

    std::mt19937_64 m_rng;
};

bool keep(const std::string &path, const std::string &bytes)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << bytes;
    return bool(f);
}

} // namespace

int main(int argc, char **argv)
{
    double seconds = 60;
    std::uint64_t seed = 20261127;
    std::vector<std::string> dirs;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--seconds" && i + 1 < argc)
            seconds = std::atof(argv[++i]);
        else if (a == "--seed" && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else
            dirs.push_back(a);
    }
    if (const char *env = std::getenv("CL_FUZZ_SECONDS"))
        seconds = std::atof(env);
    const auto inputs = corpus(dirs);
    if (inputs.size() < 4) {
        std::fprintf(stderr, "fuzz_write: only %zu inputs found in the given folders\n", inputs.size());
        return 1;
    }
    const auto &strategies = strategy::all();
    const std::vector<Format> formats = allFormats();
    const fs::path work = fs::temp_directory_path() / ("contextlens-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(work);
    const std::string in = (work / "in").string(), out = (work / "out").string();
    Mutator mut(seed);
    std::size_t runs = 0, loaded = 0, cliRuns = 0;
    std::vector<std::size_t> byFormat(kFormatCount, 0);
    const auto stop = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (std::chrono::steady_clock::now() < stop && status == 0) {
        const std::string bytes = mut.mutate(inputs[mut.pick(inputs.size())]);
        keep("fuzz-current.bin", bytes);
        ++runs;
        LoadOptions lo;
        lo.loadSubagents = false;
        lo.threads = 1;
        if (mut.pick(4) == 0)
            lo.format = formats[mut.pick(formats.size())];
        try {
            const LoadResult r = loadBytes(bytes, "fuzz.jsonl", lo);
            if (!r.ok())
                continue;
            ++loaded;
            ++byFormat[std::size_t(r.transcript->format)];
            const std::vector<const strategy::Strategy *> one{strategies[mut.pick(strategies.size())]};
            for (const auto &f : test::writeEverywhere(*r.transcript, one, formats[mut.pick(formats.size())])) {
                std::fprintf(stderr, "fuzz_write: run %zu: %s\n", runs, f.c_str());
                status = 1;
            }
        } catch (const std::exception &e) {
            std::fprintf(stderr, "fuzz_write: run %zu: exception escaped: %s\n", runs, e.what());
            status = 1;
        }
        // The commands, now and then, through the files a user would pass them.
        if (status == 0 && runs % 16 == 0 && keep(in, bytes)) {
            ++cliRuns;
            std::vector<std::string> args;
            if (mut.pick(2))
                args = {"convert", in, "--to", std::string(formatName(formats[mut.pick(formats.size())])), "-o", out, "--force"};
            else {
                const strategy::Strategy *s = strategies[mut.pick(strategies.size())];
                args = {"compact", in, "--strategy", std::string(s->name()), "-o", out, "--force"};
                if (test::forcedParams(*s).contains("force"))
                    args.insert(args.end(), {"--param", "force=true"});
            }
            std::error_code ec;
            fs::remove(out, ec);
            std::string o, e;
            const int code = cli::run(args, o, e);
            const bool outputMissing = code != cli::Exit::Failure && !fs::exists(out);
            if (code < 0 || code > 2 || outputMissing
                || e.find("internal error") != std::string::npos) {
                std::fprintf(stderr, "fuzz_write: run %zu: %s exited %d%s: %s\n", runs, args[0].c_str(), code,
                             outputMissing ? " without writing its output" : "", e.c_str());
                status = 1;
            }
        }
    }
    std::error_code ec;
    fs::remove_all(work, ec);
    std::printf("fuzz_write: seed %llu, %.0f s, %zu mutants, %zu loaded (", static_cast<unsigned long long>(seed), seconds,
                runs, loaded);
    for (std::size_t f = 1; f < byFormat.size(); ++f)
        std::printf("%s%s %zu", f > 1 ? ", " : "", std::string(formatName(Format(f))).c_str(), byFormat[f]);
    std::printf("), %zu command runs: %s\n", cliRuns, status == 0 ? "no failure" : "FAILED (input in fuzz-current.bin)");
    if (status == 0)
        fs::remove("fuzz-current.bin", ec);
    return status;
}
