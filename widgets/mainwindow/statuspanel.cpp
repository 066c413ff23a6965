// SPDX-License-Identifier: MIT
#include "widgets/mainwindow/statuspanel.h"

#include "core/tokens/contextfigure.h"
#include "widgets/models/tokencount.h"

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

void StatusPanel::showSummary(const Transcript *t, const tokens::ContextFigure *given)
{
    m_showsLoading = false; // what is shown now replaces the loading text
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
    // The live context figure (tokens/contextfigure.h), as the gauge shows it.
    const tokens::ContextFigure figure = given ? *given : tokens::contextFigure(*t, tokencount::chosen());
    parts << QString::fromUtf8(formatName(t->format).data(), qsizetype(formatName(t->format).size()))
          << count(t->messages.size(), tr("%1 message"), tr("%1 messages"))
          << count(toolCalls, tr("%1 tool call"), tr("%1 tool calls"))
          << tr("live context %1 (conversation %2 + fixed part %3, %4)")
                 .arg(loc.toString(qlonglong(figure.total)), loc.toString(qlonglong(figure.conversation)),
                      loc.toString(qlonglong(figure.fixed)),
                      figure.measuredAt >= 0 ? tr("measured at message %1").arg(loc.toString(figure.measuredAt + 1))
                                             : QString::fromUtf8(tokens::basisName(figure.basis).data()));
    std::size_t history = 0;
    for (const Message &m : t->messages)
        history += m.history && !m.sidechain && m.isTurn();
    if (history)
        parts << count(history, tr("%1 message of history"), tr("%1 messages of history"));
    if (figure.lastMeasurementIsHistory)
        parts << tr("last measured %1 at message %2, before a compaction or edit")
                     .arg(loc.toString(qlonglong(figure.lastMeasured)), loc.toString(figure.lastMeasuredAt + 1));
    parts << count(t->diagnostics.size(), tr("%1 diagnostic"), tr("%1 diagnostics"));
    m_summary->setText(parts.join(QStringLiteral("  ·  ")));
}

QString StatusPanel::summaryText() const
{
    return m_summary->text();
}

void StatusPanel::setLoading(bool loading, const QString &what)
{
    if (loading && !what.isEmpty()) {
        if (!m_showsLoading)
            m_summaryBeforeLoading = m_summary->text();
        m_showsLoading = true;
        m_summary->setText(what);
    } else if (!loading && m_showsLoading) {
        m_showsLoading = false;
        m_summary->setText(m_summaryBeforeLoading);
    }
    if (loading == m_progress->isVisibleTo(this) && loading)
        return; // the same load, a new text: its progress stays
    m_progress->setVisible(loading);
    m_cancel->setVisible(loading);
    m_progress->setValue(0);
}

void StatusPanel::setProgress(double fraction)
{
    m_progress->setValue(int(qBound(0.0, fraction, 1.0) * 1000));
}

} // namespace cl::gui
