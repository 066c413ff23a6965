// SPDX-License-Identifier: MIT
#pragma once

// File names between Qt and the engine, without loss. A Unix file name is bytes: QFile::decodeName
// turns bytes that are not UTF-8 (a Latin-1 "é" in the name) into U+FFFD, so the engine would be
// handed another name and the file could not be opened. Here such a byte becomes a lone surrogate
// U+DC80..U+DCFF in the QString (no decoded name can hold one) and back into the same byte; every
// other name converts exactly as QFile::encodeName / decodeName do.

#include <QString>

#include <string>
#include <string_view>

class QUrl;

namespace cl::gui::filenames {

QString fromBytes(std::string_view name);
std::string toBytes(const QString &name);
// The local file of a file:// URL (drag and drop, native file dialogs), also one whose name is not
// UTF-8; "" for other URLs.
QString fromUrl(const QUrl &url);
// Whether the name holds bytes that are not UTF-8 (Qt's own file functions cannot open it).
bool hasRawBytes(const QString &name);

} // namespace cl::gui::filenames
