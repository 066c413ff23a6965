// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/statuspanel.h"

#include "core/tokens/estimator.h"
#include "core/tokens/fixedpart.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>

namespace cl::gui {

StatusPanel::StatusPanel(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel"), this))
{
    m_progress->setRange(0, 1000);
    m_progress->setMaximumWidth(200);
    m_progress->setTextVisible(false);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_summary, 1);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel);
    setLoading(false);
    connect(m_cancel, &QPushButton::clicked, this, &StatusPanel::cancelRequested);
}

void StatusPanel::showSummary(const Transcript *t)
{
    if (!t) {
        m_summary->setText(tr("No transcript loaded"));
        return;
    }
    std::size_t toolCalls = 0;
    for (const Message &m : t->messages)
        for (const Block &b : m.blocks)
            toolCalls += b.type == BlockType::ToolUse;
    const QLocale loc;
    const auto count = [&loc](std::size_t n, const QString &one, const QString &many) {
        return (n == 1 ? one : many).arg(loc.toString(qulonglong(n)));
    };
    QStringList parts;
    const qint64 conversation = tokens::totalEstimate(*t), fixed = tokens::fixedPart(*t).tokens;
    parts << QString::fromUtf8(formatName(t->format).data(), qsizetype(formatName(t->format).size()))
          << count(t->messages.size(), tr("%1 message"), tr("%1 messages"))
          << count(toolCalls, tr("%1 tool call"), tr("%1 tool calls"))
          << tr("live context ~%1 (conversation %2 + fixed part %3)")
                 .arg(loc.toString(conversation + fixed), loc.toString(conversation), loc.toString(fixed));
    std::size_t history = 0;
    for (const Message &m : t->messages)
        history += m.history && !m.sidechain && m.isTurn();
    if (history)
        parts << count(history, tr("%1 message of history"), tr("%1 messages of history"));
    const auto measured = tokens::measuredContext(*t);
    if (!measured.empty())
        parts << tr("measured context %1").arg(loc.toString(qlonglong(measured.back().measured)));
    parts << count(t->diagnostics.size(), tr("%1 diagnostic"), tr("%1 diagnostics"));
    m_summary->setText(parts.join(QStringLiteral("  ·  ")));
}

QString StatusPanel::summaryText() const
{
    return m_summary->text();
}

void StatusPanel::setLoading(bool loading)
{
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    m_progress->setValue(0);
}

void StatusPanel::setProgress(double fraction)
{
    m_progress->setValue(int(qBound(0.0, fraction, 1.0) * 1000));
}

} // namespace cl::gui
