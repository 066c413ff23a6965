// SPDX-License-Identifier: MIT
// neutraliseRemoteImages (markdownimages.h): a line scan that skips fenced code blocks and rewrites
// the images of the rest.
#include "core/report/markdownimages.h"
#include "core/report/textformat.h"

#include <cctype>

namespace cl::report {

namespace {

// Not a local file next to the Markdown: a scheme (http:, https:, ftp:, …; data: is inline and
// loads nothing) or a protocol-relative "//host".
bool remoteAddress(std::string_view address)
{
    std::size_t i = 0;
    while (i < address.size() && (address[i] == ' ' || address[i] == '<'))
        ++i;
    address.remove_prefix(i);
    if (address.substr(0, 2) == "//")
        return true;
    std::size_t n = 0;
    while (n < address.size() && (std::isalnum(static_cast<unsigned char>(address[n])) || address[n] == '+' || address[n] == '-' || address[n] == '.'))
        ++n;
    if (n < 2 || n >= address.size() || address[n] != ':')
        return false; // a relative path, or a Windows drive letter "C:"
    std::string scheme(address.substr(0, n));
    for (char &c : scheme)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return scheme != "data";
}

// One line outside a fence: every "![alt](remote …)" and "![alt][ref]" becomes a link.
std::string rewriteLine(std::string_view line, std::size_t &count)
{
    std::string out;
    std::size_t pos = 0;
    while (pos < line.size()) {
        const std::size_t bang = line.find("![", pos);
        if (bang == std::string_view::npos || (bang > 0 && line[bang - 1] == '\\')) {
            const std::size_t to = bang == std::string_view::npos ? line.size() : bang + 2;
            out.append(line.substr(pos, to - pos));
            pos = to;
            continue;
        }
        // The alt text, brackets balanced.
        std::size_t i = bang + 2;
        int depth = 1;
        while (i < line.size() && depth > 0) {
            if (line[i] == '\\')
                ++i;
            else if (line[i] == '[')
                ++depth;
            else if (line[i] == ']')
                --depth;
            ++i;
        }
        const bool closed = depth == 0 && i < line.size();
        const bool inlineImage = closed && line[i] == '(';
        const bool referenceImage = closed && line[i] == '[';
        if ((inlineImage && remoteAddress(line.substr(i + 1))) || referenceImage) {
            out.append(line.substr(pos, bang - pos));
            out += "[image: ";
            out.append(line.substr(bang + 2, i - bang - 2)); // alt text and its "]"
            pos = i;
            ++count;
            continue;
        }
        out.append(line.substr(pos, bang + 2 - pos));
        pos = bang + 2;
    }
    return out;
}

} // namespace

std::string neutraliseRemoteImages(std::string_view markdown, std::size_t *count)
{
    std::size_t n = 0;
    std::string out;
    out.reserve(markdown.size() + 64);
    std::string openFence;
    std::size_t pos = 0;
    while (pos < markdown.size()) {
        std::size_t eol = markdown.find('\n', pos);
        const std::size_t end = eol == std::string_view::npos ? markdown.size() : eol;
        const std::string_view line = markdown.substr(pos, end - pos);
        const std::string_view fence = fenceOf(line);
        if (!openFence.empty()) {
            out.append(line);
            if (!fence.empty() && fence[0] == openFence[0] && fence.size() >= openFence.size()
                && line.find_first_not_of(' ', line.find(fence) + fence.size()) == std::string_view::npos)
                openFence.clear();
        } else if (!fence.empty()) {
            out.append(line);
            openFence = std::string(fence);
        } else {
            out += rewriteLine(line, n);
        }
        if (eol == std::string_view::npos)
            break;
        out += '\n';
        pos = eol + 1;
    }
    if (count)
        *count = n;
    return out;
}

} // namespace cl::report
