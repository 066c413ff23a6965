// SPDX-License-Identifier: MIT
// File › Export Report… (a self-contained HTML page or Markdown of the session: core/report/report.h)
// and File › Export as Markdown…: computed in the background with progress and Cancel, written
// atomically, never over the open transcript. Before writing, the secrets found are listed with
// "Redact secrets", on by default (redactiondialog.h).
#include "widgets/models/filenames.h"
#include "widgets/mainwindow/mainwindow.h"

#include "core/io/writer.h"
#include "core/redact/redact.h"
#include "core/report/markdownimages.h"
#include "core/report/report.h"
#include "widgets/mainwindow/redactiondialog.h"
#include "widgets/strategy/paramform.h"
#include "widgets/strategy/strategypanel.h"
#include "widgets/transcript/contextgauge.h"
#include "widgets/transcript/transcriptdocument.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>

namespace cl::gui {

namespace {

const QString kReportFolderKey = QStringLiteral("files/reportFolder");

void rememberReportFolder(const QString &path)
{
    QSettings().setValue(kReportFolderKey, QFileInfo(path).absolutePath());
}

} // namespace

QString MainWindow::reportSuggestion(const QString &suffix) const
{
    QString folder = QSettings().value(kReportFolderKey).toString();
    if (folder.isEmpty() || !QFileInfo(folder).isDir())
        folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    if (folder.isEmpty() || !QFileInfo(folder).isDir())
        folder = QDir::homePath();
    return QDir(folder).filePath(QFileInfo(m_path).completeBaseName() + suffix);
}

bool MainWindow::exportReportTo(const QString &path, QString *error, bool redact)
{
    auto fail = [error](const QString &why) {
        if (error)
            *error = why;
        return false;
    };
    if (!m_transcript)
        return fail(tr("no transcript loaded"));
    if (m_doc->isInputPath(path))
        return fail(tr("%1 is the open transcript; choose another file").arg(path));
    const auto format = report::reportFormatForPath(filenames::toBytes(path));
    if (!format)
        return fail(tr("%1: the name must end in .html or .md").arg(path));
    if (m_reportJob.isRunning())
        return fail(tr("a report is being written"));
    report::ReportOptions o;
    o.contextWindow = m_gauge->contextWindow();
    o.title = QFileInfo(m_path).fileName().toStdString();
    // The strategy the dock shows, with its parameters, is the report's preview.
    if (const auto preview = m_strategyPanel->preview(); preview && preview->changed) {
        o.previewStrategy = preview->strategy;
        o.previewParams = m_strategyPanel->paramForm()->values();
    }
    auto transcript = m_transcript;
    std::shared_ptr<const redact::Rules> rules = redact ? redactionRules() : nullptr;
    const std::string file = filenames::toBytes(QFileInfo(path).absoluteFilePath());
    const report::ReportFormat fmt = *format;
    auto *progress = m_showErrorDialogs ? new QProgressDialog(tr("Writing the report (every strategy runs once)\u2026"), tr("Cancel"), 0, 100, this)
                                        : nullptr;
    if (progress) {
        progress->setWindowModality(Qt::WindowModal);
        progress->setMinimumDuration(300);
        progress->setAttribute(Qt::WA_DeleteOnClose);
        connect(progress, &QProgressDialog::canceled, this, [this] { m_reportJob.cancel(); });
    }
    m_reportJob.start(
        [transcript, o, file, fmt, rules](JobControl &control) mutable {
            o.cancel = control.cancelFlag();
            o.progress = [&control](std::size_t done, std::size_t total) { control.setProgress(qint64(done), qint64(total)); };
            std::string bytes;
            if (rules) { // a redacted copy is what the report is made of
                redact::Redactor redactor(rules);
                bytes = report::renderReport(*redact::redactedCopy(*transcript, redactor), o, fmt);
                if (fmt == report::ReportFormat::Markdown)
                    bytes = report::neutraliseRemoteImages(bytes);
            } else {
                bytes = report::renderReport(*transcript, o, fmt);
            }
            ReportOutcome out;
            if (control.isCancelled())
                return out;
            std::string why;
            out.ok = writeFileAtomic(file, bytes, &why);
            out.error = QString::fromStdString(why);
            return out;
        },
        [this, path, progress](ReportOutcome out) {
            if (progress)
                progress->close();
            if (!out.ok) {
                m_lastError = out.error;
                if (m_showErrorDialogs)
                    QMessageBox::warning(this, tr("Report not written"), out.error);
                else
                    tellFailure(tr("Report not written: %1").arg(out.error));
                return;
            }
            m_lastError.clear();
            tellWritten(tr("Report written to %1").arg(QDir::toNativeSeparators(path)), path);
            Q_EMIT reportWritten(path);
        },
        [progress](JobProgress p) {
            if (progress)
                progress->setValue(int(100.0 * p.fraction()));
        });
    return true;
}

void MainWindow::exportReportDialog()
{
    if (!m_transcript) {
        tell(tr("Open a transcript first"));
        return;
    }
    QString chosen;
    const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), reportSuggestion(QStringLiteral("-report.html")),
                                                      tr("HTML page (*.html);;Markdown (*.md)"), &chosen);
    if (path.isEmpty())
        return;
    rememberReportFolder(path);
    bool redact = true;
    if (!confirmRedaction(m_transcript, RedactionDialog::Purpose::Report, this, &redact))
        return;
    QString error;
    if (!exportReportTo(path, &error, redact))
        QMessageBox::warning(this, tr("Report not written"), error);
}

bool MainWindow::exportMarkdownTo(const QString &path, QString *error, bool redact)
{
    if (!m_doc->current()) {
        if (error)
            *error = tr("no transcript loaded");
        return false;
    }
    if (m_doc->isInputPath(path)) {
        if (error)
            *error = tr("%1 is the open transcript; choose another file").arg(path);
        return false;
    }
    // The working transcript, as shown: what applied strategies made of it.
    std::string bytes;
    if (redact) {
        redact::Redactor redactor(redactionRules());
        bytes = report::neutraliseRemoteImages(report::markdownTranscript(*redact::redactedCopy(*m_doc->current(), redactor)));
    } else {
        bytes = report::markdownTranscript(*m_doc->current());
    }
    std::string why;
    if (!writeFileAtomic(filenames::toBytes(QFileInfo(path).absoluteFilePath()), bytes, &why)) {
        if (error)
            *error = QString::fromStdString(why);
        return false;
    }
    tellWritten(tr("Markdown written to %1").arg(QDir::toNativeSeparators(path)), path);
    return true;
}

void MainWindow::exportMarkdownDialog()
{
    if (!m_doc->current()) {
        tell(tr("Open a transcript first"));
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export as Markdown"), reportSuggestion(QStringLiteral(".md")),
                                                      tr("Markdown (*.md)"));
    if (path.isEmpty())
        return;
    rememberReportFolder(path);
    bool redact = true;
    if (!confirmRedaction(m_doc->current(), RedactionDialog::Purpose::Markdown, this, &redact))
        return;
    QString error;
    if (!exportMarkdownTo(path, &error, redact))
        QMessageBox::warning(this, tr("Markdown not written"), error);
}

} // namespace cl::gui
