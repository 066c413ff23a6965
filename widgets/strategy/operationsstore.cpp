// SPDX-License-Identifier: MIT
#include "widgets/strategy/operationsstore.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>

namespace cl::gui {

namespace {
const QString kBesideKey = QStringLiteral("operations/besideTranscript");
}

QString operationsStoreFolder(const QString &transcriptPath, bool besideTranscript)
{
    const QFileInfo info(transcriptPath);
    const QString beside = QDir(info.absolutePath()).filePath(QStringLiteral(".compression"));
    if (besideTranscript || QFileInfo(beside).isDir())
        return beside;
    const QByteArray key = QCryptographicHash::hash(info.absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex().left(16);
    QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (data.isEmpty())
        data = QDir::home().filePath(QStringLiteral(".local/share/contextlens"));
    return QDir(data).filePath(QStringLiteral("compression/%1-%2").arg(info.completeBaseName(), QString::fromLatin1(key)));
}

bool operationsStoreBeside()
{
    return QSettings().value(kBesideKey, false).toBool();
}

void setOperationsStoreBeside(bool beside)
{
    QSettings().setValue(kBesideKey, beside);
}

} // namespace cl::gui
