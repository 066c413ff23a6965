// SPDX-License-Identifier: MIT
// Linked into every test executable: before anything else runs, HOME is a fresh folder of this
// process's own and QStandardPaths is in test mode, so no test reads or writes the user's real
// settings, recent files or window layout (QSettings follows QStandardPaths on Linux), and two tests
// running at once never share a settings file. The folder is removed when the process ends.

#include <QStandardPaths>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace {

struct TestEnvironment {
    std::string home;
    TestEnvironment()
    {
        std::string pattern = (std::filesystem::temp_directory_path() / "contextlens-test-home-XXXXXX").string();
        if (::mkdtemp(pattern.data())) {
            home = pattern;
            ::setenv("HOME", home.c_str(), 1);
            ::unsetenv("XDG_CONFIG_HOME");
            ::unsetenv("XDG_DATA_HOME");
            ::unsetenv("XDG_CACHE_HOME");
        }
        QStandardPaths::setTestModeEnabled(true);
    }
    ~TestEnvironment()
    {
        std::error_code ec;
        if (!home.empty())
            std::filesystem::remove_all(home, ec);
    }
};

const TestEnvironment kEnvironment;

} // namespace
