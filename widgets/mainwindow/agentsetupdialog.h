// SPDX-License-Identifier: MIT
#pragma once

// Help › Use ContextLens Inside an Agent…: what `contextlens-cli setup` adds to Claude Code's or
// Gemini CLI's settings.json (core/io/agentsettings.h: the status line, the compaction hooks),
// shown as the file would read before anything is written; Add writes it after a backup.

#include "core/io/agentsettings.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;

namespace cl::gui {

class AgentSetupDialog : public QDialog
{
    Q_OBJECT
public:
    // `home`: whose settings (the user's home folder); `command`: how the agent runs contextlens-cli.
    AgentSetupDialog(const QString &home, const QString &command, QWidget *parent = nullptr);

    QComboBox *agentBox() const { return m_agent; }
    QCheckBox *replaceBox() const { return m_replace; }
    QLabel *summary() const { return m_summary; }
    QPlainTextEdit *preview() const { return m_preview; }
    QPushButton *addButton() const { return m_add; }
    QString settingsFile() const;
    agentsettings::Agent agent() const; // the one chosen

    // contextlens-cli next to this program, else the name on PATH.
    static QString defaultCommand();

private:
    agentsettings::Request request() const; // the current choice
    void refresh();                         // a dry run of it
    void add();

    QString m_home, m_command;
    QComboBox *m_agent;
    QCheckBox *m_statusLine, *m_hooks, *m_replace;
    QLabel *m_summary;
    QPlainTextEdit *m_preview;
    QPushButton *m_add;
};

} // namespace cl::gui
