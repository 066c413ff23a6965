// SPDX-License-Identifier: MIT
// Where `convert` and `compact -o` write: a file (atomically; never over the input or an existing file
// without --force) or standard output ("-"); then what was written is loaded back in the target
// format and checked by the rules `validate` uses, so the validity a command reports is that of its
// bytes.
#include "cli/common.h"
#include "cli/redaction.h"

#include "core/util/allocator.h"
#include "core/io/validity.h"

#include <filesystem>
#include <system_error>

namespace cl::cli {

namespace {

int g_stdoutFd = -1;

} // namespace

bool isSameFile(const std::string &a, const std::string &b)
{
    std::error_code ec;
    if (std::filesystem::equivalent(a, b, ec))
        return true;
    const auto ca = std::filesystem::weakly_canonical(a, ec);
    const auto cb = std::filesystem::weakly_canonical(b, ec);
    return !ec && ca == cb;
}

void setStdoutDescriptor(int fd)
{
    g_stdoutFd = fd;
}

std::string checkOutputPath(const std::string &output, const std::string &input, bool force)
{
    if (output.empty())
        return "-o needs a file name (or - for standard output)";
    if (output == "-")
        return {};
    std::error_code ec;
    if (std::filesystem::is_directory(output, ec))
        return output + ": is a directory";
    if (input != "-" && isSameFile(input, output) && !force)
        return output + ": is the input file; refusing to overwrite it (use --force)";
    if (std::filesystem::exists(output, ec) && !force)
        return output + ": already exists; refusing to overwrite it (use --force)";
    return {};
}

Written writeChecked(const std::string &output, Format target, const std::function<WriteResult(ByteSink &)> &write,
                     const std::function<void()> &release, std::string &out)
{
    Written r;
    LoadOptions back;
    back.format = target;
    back.loadSubagents = false;
    LoadResult reloaded;
    if (output == "-") {
        // Standard output cannot be read back: the bytes are checked in memory, then written from
        // the reloaded transcript's own buffer (no second copy).
        ByteSink sink;
        r.write = write(sink);
        if (!r.write.ok) {
            r.error = r.write.error;
            return r;
        }
        if (release)
            release();
        releaseFreedMemory();
        reloaded = loadBytes(sink.take(), "(standard output)", back);
        if (reloaded.ok()) {
            const std::string &bytes = *reloaded.transcript->buffer;
            if (g_stdoutFd >= 0) {
                ByteSink stdoutSink(g_stdoutFd);
                stdoutSink += bytes;
                if (!stdoutSink.flush()) {
                    r.error = "standard output: " + stdoutSink.error();
                    return r;
                }
            } else {
                out += bytes;
            }
        }
    } else {
        std::string error;
        const bool written = writeFileAtomic(
            output, [&](int fd, std::string &why) {
                ByteSink sink(fd);
                r.write = write(sink);
                if (!r.write.ok)
                    why = r.write.error;
                return r.write.ok;
            },
            &error);
        if (!written) {
            r.error = error;
            return r;
        }
        if (release)
            release();
        releaseFreedMemory();
        reloaded = loadFile(output, back);
    }
    r.ok = true;
    if (!reloaded.ok())
        r.violations.push_back({-1, "written output does not load back: " + reloaded.error});
    else
        r.violations = cl::validate(*reloaded.transcript, target);
    return r;
}

bool redactorFromArgs(const Args &a, std::unique_ptr<redact::Redactor> &redactor, std::string &error)
{
    const auto patterns = a.value("--redact-patterns");
    if (!a.has("--redact") && !patterns)
        return true;
    auto rules = redact::Rules::builtIn();
    if (patterns && !rules->addPatternsFile(*patterns, error))
        return false;
    redactor = std::make_unique<redact::Redactor>(std::move(rules));
    return true;
}

std::function<WriteResult(ByteSink &)> redactingWrite(std::function<WriteResult(ByteSink &)> write, redact::Redactor *redactor)
{
    if (!redactor)
        return write;
    return [write = std::move(write), redactor](ByteSink &sink) {
        ByteSink memory;
        WriteResult r = write(memory);
        if (!r.ok)
            return r;
        const std::string redacted = redactor->fileBytes(memory.take());
        sink += redacted;
        r.size = redacted.size();
        return finishWrite(std::move(r), sink);
    };
}

ojson redactionJson(const redact::Redactor &r)
{
    ojson rules = ojson::object();
    for (const auto &[rule, n] : r.countsByRule())
        rules[rule] = n;
    return ojson{{"secrets", r.occurrences()}, {"distinct", r.secrets().size()}, {"rules", rules}};
}

std::string redactionText(const redact::Redactor &r)
{
    if (r.secrets().empty())
        return "redacted: no secrets found\n";
    return "redacted " + std::to_string(r.occurrences()) + " secret(s) (" + std::to_string(r.secrets().size())
           + " distinct): " + redact::countsText(r) + "\n";
}

} // namespace cl::cli
