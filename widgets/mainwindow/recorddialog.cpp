// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/recorddialog.h"

#include "net/recordingfile.h"
#include "net/recordingproxy.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include "core/strategies/registry.h"
#include "core/strategy/strategy.h"
#include "core/workflow/requestrewrite.h"

#include <QCheckBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QUrl>
#include <QVBoxLayout>

namespace cl::gui {

RecordDialog::RecordDialog(QWidget *parent)
    : QDialog(parent)
    , m_path(new QLineEdit(defaultPath(), this))
    , m_upstream(new QComboBox(this))
    , m_strategy(new QComboBox(this))
    , m_dryRun(new QCheckBox(tr("&Dry run: record what it would send, pass on what the agent sent"), this))
    , m_compact(new QCheckBox(tr("&Compact on the wire"), this))
    , m_browse(new QPushButton(tr("Browse…"), this))
    , m_startStop(new QPushButton(tr("&Start"), this))
    , m_open(new QPushButton(tr("&Open Recording"), this))
    , m_status(new QLabel(this))
    , m_commands(new QPlainTextEdit(this))
{
    setWindowTitle(tr("Record an Agent"));
    setObjectName(QStringLiteral("recordDialog"));
    auto *intro = new QLabel(tr("A proxy on this machine passes everything an agent sends to its model provider and every answer "
                                "back, as they stream, and writes both to the recording: the whole requests, as the model "
                                "received them. API keys are never written."),
                             this);
    intro->setWordWrap(true);
    m_upstream->setEditable(true);
    m_upstream->addItem(tr("By path: Anthropic, OpenAI or Gemini"), QString());
    m_upstream->setToolTip(tr("Where requests go: chosen by their path, or a base URL you type (a gateway, a local model server)"));
    m_path->setToolTip(tr("The recording: JSON lines, readable by you only (mode 0600); an existing file is appended to"));
    auto *pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(m_browse);
    auto *form = new QFormLayout;
    form->addRow(tr("Recording:"), pathRow);
    form->addRow(tr("Provider:"), m_upstream);
    m_strategy->setObjectName(QStringLiteral("recordStrategy"));
    m_strategy->addItem(tr("None: record only"), QString());
    for (const strategy::Strategy *s : strategy::all())
        m_strategy->addItem(QString::fromUtf8(s->title().data(), qsizetype(s->title().size())),
                            QString::fromUtf8(s->name().data(), qsizetype(s->name().size())));
    m_strategy->setToolTip(tr("Compaction on the wire: each request the agent sends is run through this strategy (its "
                              "default parameters) and the compacted request is passed on instead. One the provider would "
                              "reject is never passed on: the agent's own goes."));
    m_compact->setToolTip(tr("Turns compaction on the wire off (and on again) at once: the next request goes as the agent sent it"));
    m_compact->setChecked(true);
    auto *strategyRow = new QHBoxLayout;
    strategyRow->addWidget(m_strategy, 1);
    strategyRow->addWidget(m_compact);
    form->addRow(tr("Strategy:"), strategyRow);
    form->addRow(QString(), m_dryRun);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, [this] { showState(); });
    connect(m_compact, &QCheckBox::toggled, this, [this](bool on) {
        if (m_proxy)
            m_proxy->setRewriting(on);
        showState();
    });
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_commands->setReadOnly(true);
    m_commands->setObjectName(QStringLiteral("recordCommands"));
    m_commands->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_commands->setFont(mono);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_startStop, QDialogButtonBox::ActionRole);
    buttons->addButton(m_open, QDialogButtonBox::ActionRole);
    m_open->setToolTip(tr("Show the recorded requests in the window, each as the model received it"));
    connect(m_open, &QPushButton::clicked, this, [this] { Q_EMIT openRequested(m_path->text().trimmed()); });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(m_commands, 1);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(m_startStop, &QPushButton::clicked, this, [this] {
        if (isRecording())
            stop();
        else
            start();
    });
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString chosen = QFileDialog::getSaveFileName(this, tr("Record to"), m_path->text(), tr("Recordings (*.jsonl);;All files (*)"),
                                                            nullptr, QFileDialog::DontConfirmOverwrite);
        if (!chosen.isEmpty())
            m_path->setText(chosen);
    });
    resize(760, 460);
    showState();
}

RecordDialog::~RecordDialog()
{
    stop();
}

QString RecordDialog::defaultPath()
{
    const QString dir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/recordings");
    return dir + QStringLiteral("/recording-") + QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"))
           + QStringLiteral(".jsonl");
}

quint16 RecordDialog::port() const
{
    return m_proxy ? m_proxy->port() : 0;
}

QString RecordDialog::statusText() const
{
    return m_status->text();
}

bool RecordDialog::start()
{
    if (isRecording())
        return true;
    m_problem.clear();
    m_exchanges = 0;
    const QString path = m_path->text().trimmed();
    // The combo's first entry, or what the user typed over it.
    const QString typed = m_upstream->currentText().trimmed();
    const QString upstream = m_upstream->currentIndex() == 0 && typed == m_upstream->itemText(0) ? QString() : typed;
    const QUrl url(upstream, QUrl::StrictMode);
    if (!upstream.isEmpty() && !net::RecordingProxy::isUpstreamUrl(url))
        m_problem = tr("The provider must be an http:// or https:// URL, such as https://api.anthropic.com.");
    else if (path.isEmpty())
        m_problem = tr("Choose where the recording goes.");
    if (m_problem.isEmpty()) {
        QDir().mkpath(QFileInfo(path).absolutePath());
        auto file = std::make_unique<net::RecordingFile>();
        std::string error;
        if (!file->open(path.toStdString(), error)) {
            m_problem = tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), QString::fromStdString(error));
        } else {
            auto proxy = std::make_unique<net::RecordingProxy>(file.get());
            m_rewriter.reset();
            m_rewritten = 0;
            m_lastRewrite.clear();
            if (const QString name = m_strategy->currentData().toString(); !name.isEmpty()) {
                wire::RewriteOptions options;
                options.strategy = name.toStdString();
                options.dryRun = m_dryRun->isChecked();
                m_rewriter = std::make_unique<wire::RequestRewriter>(options);
                proxy->setRewriter(m_rewriter.get());
                proxy->setRewriting(m_compact->isChecked());
                proxy->setRewriteHandler([this](const std::string &line) {
                    ++m_rewritten;
                    m_lastRewrite = QString::fromStdString(line);
                    showState();
                });
            }
            proxy->setUpstream(url.adjusted(QUrl::StripTrailingSlash).toString(QUrl::FullyEncoded));
            if (upstream.isEmpty())
                proxy->useAgentsEnvironment();
            QString listenError;
            if (!proxy->listen(QHostAddress::LocalHost, 0, &listenError)) {
                m_problem = tr("Cannot listen on 127.0.0.1: %1").arg(listenError);
            } else {
                file->writeStart(QStringLiteral("http://127.0.0.1:%1").arg(proxy->port()), proxy->upstream());
                file->setExchangeHandler([this](qint64 n) {
                    m_exchanges = n;
                    showState();
                });
                file->setWriteErrorHandler([this](const std::string &why) {
                    m_problem = tr("The recording stopped (%1); requests are still passed on.").arg(QString::fromStdString(why));
                    showState();
                });
                m_file = std::move(file);
                m_proxy = std::move(proxy);
            }
        }
    }
    showState();
    return isRecording();
}

void RecordDialog::stop()
{
    if (!m_proxy)
        return;
    m_proxy->close();
    m_proxy.reset();
    m_rewriter.reset();
    m_file->close();
    m_file.reset();
    showState();
}

void RecordDialog::closeEvent(QCloseEvent *event)
{
    stop();
    QDialog::closeEvent(event);
}

bool RecordDialog::isCompacting() const
{
    return m_proxy && m_proxy->isRewriting();
}

void RecordDialog::showState()
{
    const bool on = isRecording();
    const bool strategy = !m_strategy->currentData().toString().isEmpty();
    m_strategy->setEnabled(!on);
    m_dryRun->setEnabled(!on && strategy);
    m_compact->setEnabled(strategy);
    m_startStop->setText(on ? tr("&Stop") : tr("&Start"));
    m_path->setEnabled(!on);
    m_browse->setEnabled(!on);
    m_upstream->setEnabled(!on);
    m_open->setEnabled(m_exchanges > 0);
    const QString file = QDir::toNativeSeparators(m_path->text().trimmed());
    const QString count = m_exchanges == 1 ? tr("1 exchange") : tr("%1 exchanges").arg(QLocale().toString(m_exchanges));
    QString status;
    if (on)
        status = tr("<b>Recording</b> on http://127.0.0.1:%1 into %2: %3 so far.").arg(port()).arg(file.toHtmlEscaped(), count);
    else if (m_exchanges > 0)
        status = tr("Stopped: %1 in %2.").arg(count, file.toHtmlEscaped());
    else
        status = tr("Not recording.");
    if (on && m_rewriter)
        status += u' '
                  + (isCompacting() ? tr("%1 %2: %n request(s) changed.", nullptr, int(m_rewritten))
                                          .arg(m_rewriter->options().dryRun ? tr("Dry run of") : tr("Compacting with"),
                                               m_strategy->currentText().toHtmlEscaped())
                                    : tr("Compaction on the wire is off: requests go as the agent sent them."));
    if (on && !m_lastRewrite.isEmpty())
        status += QStringLiteral("<br><small>") + m_lastRewrite.toHtmlEscaped() + QStringLiteral("</small>");
    if (!m_problem.isEmpty())
        status += QStringLiteral(" <span style='color:#e0533d'>%1</span>").arg(m_problem.toHtmlEscaped());
    m_status->setText(status);
    if (!on) {
        m_commands->setPlainText(tr("Start, then start the agent in a terminal through the proxy.\n\n"
                                    "From the command line, contextlens-cli record does the same and starts the agent itself:\n"
                                    "  contextlens-cli record -o recording.jsonl -- claude"));
        return;
    }
    const QString base = QStringLiteral("http://127.0.0.1:%1").arg(port());
    m_commands->setPlainText(tr("Start the agent in a terminal through the proxy (copy a line):\n\n"
                                "Claude Code   ANTHROPIC_BASE_URL=%1 claude\n"
                                "Gemini CLI    GOOGLE_GEMINI_BASE_URL=%1 gemini\n"
                                "Codex CLI     OPENAI_BASE_URL=%1/v1 codex\n\n"
                                "Each request and its answer is written when the answer ends.\n"
                                "Stop (or closing this window) ends the recording;\n"
                                "an agent still running then loses its connection.")
                                 .arg(base));
}

} // namespace cl::gui
