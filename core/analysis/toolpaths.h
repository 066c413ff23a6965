// SPDX-License-Identifier: MIT
#pragma once

// Readers of a tool call's command and paths without copies, shared by the analysis and the
// summaries (analysis.h has the copying versions, shellCommand() and toolPaths()).

#include "core/model/transcript.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace cl::analysis {

// The command string of a shell-kind call without copying when it is a plain string (the usual
// case); `storage` holds it when it has to be built. Same result as shellCommand().
std::string_view shellCommandView(const Block &toolUse, std::string &storage);
// The paths of apply_patch text ("*** Add/Update/Delete File:" and "*** Move to:" headers), in order.
template <class F> void forEachPatchPath(std::string_view text, F &&f);
// toolPaths() without building a vector: calls f(std::string_view) per path, in the same order.
template <class F> void forEachToolPath(const Block &toolUse, F &&f);

template <class F> void forEachPatchPath(std::string_view text, F &&f)
{
    static constexpr std::string_view heads[] = {"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "};
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t eol = text.find('\n', pos);
        if (eol == std::string_view::npos)
            eol = text.size();
        std::string_view line = text.substr(pos, eol - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        if (line.size() > 4 && line[0] == '*')
            for (const std::string_view h : heads)
                if (line.size() > h.size() && line.substr(0, h.size()) == h)
                    f(line.substr(h.size()));
        pos = eol + 1;
    }
}

template <class F> void forEachToolPath(const Block &b, F &&f)
{
    const auto &in = b.input;
    if (in.is_string()) {
        forEachPatchPath(in.get_ref<const std::string &>(), f);
        return;
    }
    if (!in.is_object())
        return;
    // One pass over the members (tool inputs have a handful) instead of seven lookups, each a walk
    // over scattered tree nodes; the paths are then reported in the fixed key order below.
    enum {
        kFilePath,
        kPath,
        kAbsolutePath,
        kNotebookPath,
        kPaths,
        kInput,
        kPatch,
        kKeys
    };
    static constexpr std::string_view keys[kKeys] = {"file_path", "path", "absolute_path", "notebook_path", "paths",
                                                     "input", "patch"};
    const nlohmann::json *found[kKeys] = {};
    for (auto it = in.begin(); it != in.end(); ++it) {
        const std::string &k = it.key();
        for (int j = 0; j < kKeys; ++j)
            if (k == keys[j]) {
                found[j] = &it.value();
                break;
            }
    }
    for (int j = kFilePath; j <= kNotebookPath; ++j)
        if (found[j] && found[j]->is_string() && !found[j]->template get_ref<const std::string &>().empty())
            f(std::string_view(found[j]->template get_ref<const std::string &>()));
    if (found[kPaths] && found[kPaths]->is_array())
        for (const auto &p : *found[kPaths])
            if (p.is_string())
                f(std::string_view(p.template get_ref<const std::string &>()));
    for (int j = kInput; j <= kPatch; ++j)
        if (found[j] && found[j]->is_string())
            forEachPatchPath(found[j]->template get_ref<const std::string &>(), f);
}

} // namespace cl::analysis
