// SPDX-License-Identifier: MIT
#pragma once

// The engine's UTF-8 text as a QString: the one conversion the widgets use.

#include <QString>

#include <string_view>

namespace cl::gui {

inline QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

} // namespace cl::gui
