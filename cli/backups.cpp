// SPDX-License-Identifier: MIT
// `backups FILE [--restore WHICH] [--root DIR] [--json]`: the backups ContextLens keeps of a session
// file it saved over (core/io/backups.h), newest first; --restore puts one back (after backing up
// what the file holds now).
#include "cli/cli.h"
#include "cli/common.h"
#include "core/io/backups.h"

namespace cl::cli {

int backupsCommand(const std::vector<std::string> &args, std::string &out, std::string &err)
{
    const std::vector<OptionSpec> specs{{"--json", "", false}, {"--help", "-h", false}, {"--restore", "", true}, {"--root", "", true}};
    Args a = parseArgs(args, specs);
    Output o{out, err, a.has("--json")};
    if (a.has("--help")) {
        out += commandHelp("backups");
        return Exit::Success;
    }
    if (!a.error.empty())
        return o.fail(a.error);
    if (a.positional.size() != 1)
        return o.fail("backups needs exactly one FILE");
    const std::string file = a.positional.front();
    const std::string root = a.value("--root").value_or(backups::defaultRoot());
    std::vector<backups::Entry> list = backups::list(root, file);
    auto entryJson = [](const backups::Entry &e) {
        return ojson{{"stamp", e.stamp}, {"path", e.path}, {"size", e.size}};
    };
    if (auto which = a.value("--restore")) {
        const backups::Entry *chosen = backups::find(list, *which);
        if (!chosen)
            return o.fail("backups: no backup '" + *which + "' of " + file + " (" + std::to_string(list.size())
                          + " kept; give latest, a stamp or a position)");
        std::string error;
        backups::Entry previous;
        if (!backups::restore(root, *chosen, &error, &previous))
            return o.fail("backups: " + error);
        if (o.json)
            out += ojson{{"restored", entryJson(*chosen)}, {"file", chosen->original}, {"previous", entryJson(previous)}}.dump(2) + "\n";
        else
            out += "restored " + chosen->stamp + " over " + chosen->original + "\n" + "what it held is backup "
                   + previous.stamp + " (" + previous.path + ")\n";
        return Exit::Success;
    }
    if (o.json) {
        ojson arr = ojson::array();
        for (const auto &e : list)
            arr.push_back(entryJson(e));
        out += ojson{{"file", file}, {"folder", backups::folderFor(root, file)}, {"backups", arr}}.dump(2) + "\n";
        return Exit::Success;
    }
    if (list.empty()) {
        out += "no backups of " + file + "\n";
        return Exit::Success;
    }
    out += std::to_string(list.size()) + " backup(s) of " + file + ", newest first:\n";
    for (std::size_t k = 0; k < list.size(); ++k)
        out += "  " + std::to_string(k + 1) + "  " + list[k].stamp + "  " + std::to_string(list[k].size) + " bytes  "
               + list[k].path + "\n";
    return Exit::Success;
}

} // namespace cl::cli
