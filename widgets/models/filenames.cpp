// SPDX-License-Identifier: MIT
#include "widgets/models/filenames.h"

#include <QFile>
#include <QUrl>

namespace cl::gui::filenames {

namespace {

constexpr char16_t kFirstRaw = 0xDC80; // U+DC80 + byte, for bytes 0x80..0xFF that are not UTF-8
constexpr char16_t kLastRaw = 0xDCFF;

// Length of the valid UTF-8 sequence at s[i], 0 when it is not one (overlong forms, surrogates and
// code points past U+10FFFF are not).
std::size_t validSequence(std::string_view s, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    if (b < 0x80)
        return 1;
    std::size_t n = 0;
    char32_t cp = 0;
    if (b >= 0xC2 && b <= 0xDF) {
        n = 2;
        cp = b & 0x1F;
    } else if (b >= 0xE0 && b <= 0xEF) {
        n = 3;
        cp = b & 0x0F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        n = 4;
        cp = b & 0x07;
    } else
        return 0;
    if (i + n > s.size())
        return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
        return 0;
    return n;
}

} // namespace

QString fromBytes(std::string_view name)
{
    bool valid = true;
    for (std::size_t i = 0; i < name.size() && valid;) {
        const std::size_t n = validSequence(name, i);
        valid = n > 0;
        i += n;
    }
    if (valid)
        return QFile::decodeName(QByteArray(name.data(), qsizetype(name.size())));
    QString out;
    for (std::size_t i = 0; i < name.size();) {
        const std::size_t n = validSequence(name, i);
        if (n == 0) {
            out += QChar(char16_t(kFirstRaw + (static_cast<unsigned char>(name[i]) - 0x80)));
            ++i;
        } else {
            out += QString::fromUtf8(name.data() + i, qsizetype(n));
            i += n;
        }
    }
    return out;
}

bool hasRawBytes(const QString &name)
{
    for (qsizetype i = 0; i < name.size(); ++i) {
        const char16_t c = name.at(i).unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < name.size() && name.at(i + 1).isLowSurrogate()) {
            ++i; // a pair: one code point
            continue;
        }
        if (c >= kFirstRaw && c <= kLastRaw)
            return true;
    }
    return false;
}

std::string toBytes(const QString &name)
{
    if (!hasRawBytes(name))
        return QFile::encodeName(name).toStdString();
    std::string out;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const char16_t c = name.at(i).unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < name.size() && name.at(i + 1).isLowSurrogate()) {
            out += QString(name.mid(i, 2)).toUtf8().toStdString();
            ++i;
        } else if (c >= kFirstRaw && c <= kLastRaw)
            out += char(0x80 + (c - kFirstRaw));
        else
            out += QString(name.at(i)).toUtf8().toStdString();
    }
    return out;
}

QString fromUrl(const QUrl &url)
{
    if (!url.isLocalFile())
        return {};
    // The encoded path keeps a byte that is not UTF-8 as %XX; toLocalFile() would make it U+FFFD.
    const QByteArray bytes = QByteArray::fromPercentEncoding(url.path(QUrl::FullyEncoded).toLatin1());
    const QString decoded = fromBytes(std::string_view(bytes.constData(), std::size_t(bytes.size())));
    return hasRawBytes(decoded) ? decoded : url.toLocalFile(); // toLocalFile also handles Windows drives and hosts
}

} // namespace cl::gui::filenames
