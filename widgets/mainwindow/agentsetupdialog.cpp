// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/agentsetupdialog.h"

#include "core/io/agentsettings.h"
#include "widgets/models/qtext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

QString joined(const std::vector<std::string> &items)
{
    QStringList l;
    for (const std::string &s : items)
        l << qs(s);
    return l.join(QStringLiteral(", "));
}

} // namespace

AgentSetupDialog::AgentSetupDialog(const QString &home, const QString &command, QWidget *parent)
    : QDialog(parent)
    , m_home(home)
    , m_command(command)
{
    setWindowTitle(tr("Use ContextLens Inside an Agent"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(tr("The agent can run ContextLens itself: as Claude Code's status line (the live context, the "
                                "turns to its auto-compact, the session's cost) and on its compaction hooks (a snapshot of "
                                "the session before each compaction, shown by the Compaction Audit)."),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_agent = new QComboBox(this);
    m_agent->addItem(tr("Claude Code"));
    m_agent->addItem(tr("Gemini CLI"));
    m_agent->addItem(tr("Qwen Code"));
    layout->addWidget(m_agent);
    m_statusLine = new QCheckBox(tr("Status line"), this);
    m_statusLine->setChecked(true);
    m_hooks = new QCheckBox(tr("Compaction hooks (snapshots before each compaction)"), this);
    m_hooks->setChecked(true);
    m_replace = new QCheckBox(tr("Replace the status line I have"), this);
    for (QCheckBox *box : {m_statusLine, m_hooks, m_replace})
        layout->addWidget(box);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_preview = new QPlainTextEdit(this);
    m_preview->setReadOnly(true);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    layout->addWidget(m_preview, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    m_add = buttons->addButton(tr("Add to settings.json"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_add, &QPushButton::clicked, this, &AgentSetupDialog::add);
    layout->addWidget(buttons);
    connect(m_agent, &QComboBox::currentIndexChanged, this, &AgentSetupDialog::refresh);
    for (QCheckBox *box : {m_statusLine, m_hooks, m_replace})
        connect(box, &QCheckBox::toggled, this, &AgentSetupDialog::refresh);
    resize(720, 560);
    refresh();
}

QString AgentSetupDialog::defaultCommand()
{
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("contextlens-cli"));
    if (QFileInfo(beside).isExecutable())
        return qs(agentsettings::commandFor(beside.toStdString()));
    return QStringLiteral("contextlens-cli");
}

agentsettings::Agent AgentSetupDialog::agent() const
{
    switch (m_agent->currentIndex()) {
    case 0: return agentsettings::Agent::ClaudeCode;
    case 2: return agentsettings::Agent::QwenCode;
    default: return agentsettings::Agent::GeminiCli;
    }
}

QString AgentSetupDialog::settingsFile() const
{
    return qs(agentsettings::settingsFileOf(agent(), m_home.toStdString()));
}

agentsettings::Request AgentSetupDialog::request() const
{
    const bool claude = agent() == agentsettings::Agent::ClaudeCode;
    agentsettings::Request r;
    r.agent = agent();
    r.settingsFile = settingsFile().toStdString();
    r.command = m_command.toStdString();
    r.statusLine = claude && m_statusLine->isChecked();
    r.hooks = m_hooks->isChecked();
    r.replaceStatusLine = m_replace->isChecked();
    return r;
}

void AgentSetupDialog::refresh()
{
    const bool claude = agent() == agentsettings::Agent::ClaudeCode; // the only one with a status line command here
    m_statusLine->setEnabled(claude);
    m_replace->setEnabled(claude && m_statusLine->isChecked());
    agentsettings::Request r = request();
    r.dryRun = true;
    agentsettings::Outcome o;
    std::string error;
    if (!agentsettings::install(r, o, error)) {
        m_summary->setText(qs(error));
        m_preview->clear();
        m_add->setEnabled(false);
        return;
    }
    QString text = o.added.empty() ? tr("Nothing to add to %1.").arg(settingsFile())
                                   : tr("Adds %1 to %2; every other setting stays, and the file as it is now is kept with "
                                        "ContextLens's backups.")
                                         .arg(joined(o.added), settingsFile());
    if (!o.kept.empty())
        text += QStringLiteral(" ") + tr("Already there: %1.").arg(joined(o.kept));
    for (const std::string &why : o.refused)
        text += QStringLiteral(" ") + tr("Left alone: %1.").arg(qs(why));
    m_summary->setText(text);
    m_preview->setPlainText(qs(o.text));
    m_add->setEnabled(!o.added.empty());
}

void AgentSetupDialog::add()
{
    const agentsettings::Request r = request();
    agentsettings::Outcome o;
    std::string error;
    if (!agentsettings::install(r, o, error)) {
        m_summary->setText(tr("Not written: %1").arg(qs(error)));
        return;
    }
    refresh();
    QString done = tr("Added %1 to %2.").arg(joined(o.added), settingsFile());
    if (!o.backup.empty())
        done += QStringLiteral(" ") + tr("The file as it was: %1").arg(qs(o.backup));
    m_summary->setText(done + QStringLiteral(" ") + tr("The agent picks it up in its next session."));
}

} // namespace cl::gui
