// SPDX-License-Identifier: MIT
#include "widgets/analysis/analysispanel.h"

#include "widgets/analysis/estimatorreport.h"
#include "widgets/models/chartgeometry.h"
#include "widgets/models/contextmapgeometry.h"
#include "widgets/models/prioritycolors.h"
#include "widgets/style/theme.h"

#include "core/strategies/registry.h"
#include "core/tokens/estimator.h"

#include <QEvent>
#include <QLocale>
#include <QSplitter>
#include <QTextBrowser>
#include <QScrollBar>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

namespace cl::gui {

namespace an = cl::analysis;

namespace {

const QString kScheme = QStringLiteral("msg");

QString esc(const QString &s)
{
    return s.toHtmlEscaped();
}
QString esc(std::string_view s)
{
    return toQString(s).toHtmlEscaped();
}

QString link(std::size_t message)
{
    // The link carries the transcript index; the text numbers from 1, like the tree.
    return QStringLiteral("<a href=\"%1:%2\">#%3</a>").arg(kScheme).arg(message).arg(message + 1);
}

QString num(double v, int decimals = 2)
{
    QString s = QString::number(v, 'f', decimals);
    if (s.contains(u'.')) { // 0.50 -> 0.5, 30.00 -> 30
        while (s.endsWith(u'0'))
            s.chop(1);
        if (s.endsWith(u'.'))
            s.chop(1);
    }
    return s;
}

QString signedNum(double v, int decimals = 2)
{
    return (v > 0 ? QStringLiteral("+") : QString()) + num(v, decimals);
}

QString tokens(std::int64_t v)
{
    return QLocale().toString(qlonglong(v));
}

QString swatch(an::Priority p, bool dark)
{
    return QStringLiteral("<span style=\"background-color:%1\">&nbsp;&nbsp;&nbsp;&nbsp;</span>&nbsp;")
        .arg(priorityColor(p, dark).name());
}

QString yesNo(bool b)
{
    return b ? QStringLiteral("<b>yes</b>") : QStringLiteral("no");
}

// One table of reasons: points, rule id, explanation (with the instance's numbers).
template <class Rs> QString reasonTable(const Rs &reasons, bool withSign = true)
{
    QString html = QStringLiteral("<table cellspacing=\"0\" cellpadding=\"1\">");
    for (const an::Reason &r : reasons)
        html += QStringLiteral("<tr><td align=\"right\">%1&nbsp;&nbsp;</td><td><code>%2</code>&nbsp;&nbsp;</td><td>%3</td></tr>")
                    .arg(withSign ? signedNum(r.points) : num(r.points), esc(r.rule), esc(QString::fromStdString(r.describe())));
    return html + QStringLiteral("</table>");
}

QString row(const QString &label, const QString &value)
{
    return QStringLiteral("<tr><td>%1&nbsp;&nbsp;</td><td>%2</td></tr>").arg(label, value);
}

QString boundaryFlags(const an::BoundaryScore &b)
{
    QStringList flags;
    if (b.inToolSequence)
        flags << QStringLiteral("inside a tool sequence");
    if (b.conversationBreak)
        flags << QStringLiteral("conversation break");
    if (b.errorNear)
        flags << QStringLiteral("error nearby");
    if (b.topicChange)
        flags << QStringLiteral("topic change");
    if (b.topicSimilarity >= 0)
        flags << QStringLiteral("topic similarity %1").arg(num(b.topicSimilarity, 3));
    return flags.isEmpty() ? QStringLiteral("no flags") : flags.join(QStringLiteral(", "));
}

QString roundHtml(const an::Analysis &a, std::size_t message)
{
    QString html;
    for (std::size_t r = 0; r < a.rounds.size(); ++r) {
        const an::ToolRound &round = a.rounds[r];
        const bool mine = round.assistant == message
                          || std::find(round.results.begin(), round.results.end(), message) != round.results.end();
        if (!mine)
            continue;
        html += QStringLiteral("<p>Tool round %1 (chain %2): call from %3%4</p><ul>")
                    .arg(r)
                    .arg(round.chain)
                    .arg(link(round.assistant), round.failed ? QStringLiteral(", <b>failed</b>") : QString());
        for (const an::ToolCall &c : round.calls)
            html += QStringLiteral("<li><code>%1</code> (%2) → %3%4</li>")
                        .arg(esc(c.name), esc(an::toolKindName(c.kind)),
                             c.resultMessage >= 0 ? link(std::size_t(c.resultMessage)) : QStringLiteral("unanswered"),
                             c.failed ? QStringLiteral(" <b>failed</b>") : QString());
        html += QStringLiteral("</ul>");
    }
    return html.isEmpty() ? QStringLiteral("<p>Not part of a tool round.</p>") : html;
}

QString criticalHtml(const an::Analysis &a, std::size_t message)
{
    // Calls answered by this message: a critical call counts for its result too. Collected once,
    // so the scan stays linear on sessions with tens of thousands of calls.
    std::vector<std::pair<std::size_t, std::string_view>> answered;
    for (const an::ToolRound &round : a.rounds)
        for (const an::ToolCall &call : round.calls)
            if (call.resultMessage == std::int32_t(message))
                answered.emplace_back(call.message, call.id);
    QString html;
    for (const an::CriticalTool &c : a.critical) {
        bool mine = c.message == message;
        for (const auto &[from, id] : answered)
            mine = mine || (from == c.message && id == c.toolId);
        if (mine)
            html += QStringLiteral("<li><b>critical</b> <code>%1</code> %2: %3</li>")
                        .arg(esc(c.toolName), esc(c.category), esc(QString::fromStdString(c.reason)));
    }
    return html.isEmpty() ? QString() : QStringLiteral("<ul>") + html + QStringLiteral("</ul>");
}

} // namespace

AnalysisPanel::AnalysisPanel(QWidget *parent)
    : QWidget(parent)
    , m_messageView(new QTextBrowser(this))
    , m_sessionView(new QTextBrowser(this))
    , m_estimator(new EstimatorReport(this))
{
    setObjectName(QStringLiteral("analysisPanel"));
    auto *splitter = new QSplitter(Qt::Vertical, this);
    for (QTextBrowser *view : {m_messageView, m_sessionView}) {
        view->setOpenLinks(false); // our links select rows; they are not documents to open
        connect(view, &QTextBrowser::anchorClicked, this, &AnalysisPanel::onAnchor);
        splitter->addWidget(view);
    }
    m_messageView->setObjectName(QStringLiteral("analysisMessage"));
    m_sessionView->setObjectName(QStringLiteral("analysisSession"));
    splitter->setStretchFactor(0, 1);
    splitter->setStretchFactor(1, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
    connect(m_estimator, &EstimatorReport::started, this, &AnalysisPanel::refreshSession);
    connect(m_estimator, &EstimatorReport::ready, this, &AnalysisPanel::refreshSession);
    connect(m_estimator, &EstimatorReport::unavailable, this, &AnalysisPanel::refreshSession);
    refresh();
}

void AnalysisPanel::setAnalysis(std::shared_ptr<const Transcript> transcript, std::shared_ptr<const an::Analysis> analysis)
{
    m_transcript = std::move(transcript);
    m_analysis = m_transcript ? std::move(analysis) : nullptr;
    m_busy = false;
    if (!m_transcript)
        m_estimator->clear();
    else if (m_estimator->transcript() != m_transcript)
        m_estimator->start(m_transcript);
    refresh();
}

void AnalysisPanel::setBusy(bool busy)
{
    m_busy = busy;
    if (!m_analysis)
        refresh();
}

void AnalysisPanel::showMessage(int message)
{
    m_message = message;
    refreshMessage();
}

void AnalysisPanel::onAnchor(const QUrl &url)
{
    bool ok = false;
    const int message = url.path().toInt(&ok);
    if (url.scheme() == kScheme && ok)
        Q_EMIT messageActivated(message);
}

void AnalysisPanel::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        refresh(); // swatch colours follow the theme
}

void AnalysisPanel::refresh()
{
    refreshSession();
    refreshMessage();
}

void AnalysisPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    catchUp();
}

void AnalysisPanel::catchUp()
{
    if (m_sessionStale)
        renderSession();
    if (m_messageStale)
        renderMessage();
}

void AnalysisPanel::refreshSession()
{
    if (isVisible())
        renderSession();
    else
        m_sessionStale = true;
}

void AnalysisPanel::refreshMessage()
{
    if (isVisible())
        renderMessage();
    else
        m_messageStale = true;
}

void AnalysisPanel::renderSession()
{
    m_sessionStale = false;
    const bool dark = theme::isDark(palette());
    QString html;
    if (m_transcript && m_analysis)
        html = sessionHtml(*m_transcript, *m_analysis, dark);
    else
        html = m_busy ? tr("<p><i>Analysing the session…</i></p>") : tr("<p><i>Open a transcript to see its analysis.</i></p>");
    // The estimator table needs only the transcript: it shows while the analysis still runs.
    if (m_transcript && m_estimator->transcript() == m_transcript)
        html += estimatorReportHtml(*m_estimator, dark);
    // Keep the reader's place: the table arriving must not scroll the session back to the top.
    const int scroll = m_sessionView->verticalScrollBar()->value();
    m_sessionView->setHtml(html);
    m_sessionView->verticalScrollBar()->setValue(scroll);
}

void AnalysisPanel::renderMessage()
{
    m_messageStale = false;
    if (!m_transcript || !m_analysis)
        m_messageView->setHtml(tr("<p><i>Select a message to see why it was judged the way it was.</i></p>"));
    else
        m_messageView->setHtml(messageHtml(*m_transcript, *m_analysis, m_message, theme::isDark(palette())));
}

QString AnalysisPanel::messageHtml(const Transcript &t, const an::Analysis &a, int message, bool dark)
{
    if (message < 0 || std::size_t(message) >= t.messages.size())
        return tr("<p><i>Select a message to see why it was judged the way it was.</i></p>");
    const std::size_t i = std::size_t(message);
    const Message &m = t.messages[i];
    QString html = QStringLiteral("<h3>Message %1 · %2 · %3 tokens</h3>")
                       .arg(link(i), esc(roleName(m.role)), tokens(tokens::estimateMessage(m)));
    if (a.priority.size() == t.messages.size()) {
        const an::PriorityInfo &pi = a.priority[i];
        html += QStringLiteral("<p><b>Priority:</b> %1<b>%2</b> — <code>%3</code>: %4</p>")
                    .arg(swatch(pi.priority, dark), esc(an::priorityName(pi.priority)), esc(pi.rule),
                         esc(priorityRuleText(pi.rule)));
        QString blocks;
        for (std::size_t b = 0; b < pi.blocks.size() && b < m.blocks.size(); ++b)
            if (pi.blocks[b] != pi.priority || pi.blockRules[b] != pi.rule)
                blocks += QStringLiteral("<li>block %1 (%2): %3<code>%4</code></li>")
                              .arg(b)
                              .arg(esc(blockTypeName(m.blocks[b].type)), swatch(pi.blocks[b], dark), esc(pi.blockRules[b]));
        if (!blocks.isEmpty())
            html += QStringLiteral("<p>Blocks that differ:</p><ul>") + blocks + QStringLiteral("</ul>");
    }
    const std::int32_t pos = i < a.view.position.size() ? a.view.position[i] : -1;
    if (pos < 0 && m.history) {
        html += QStringLiteral("<p>History: before the last compaction, no longer sent to the model. The analysis and "
                               "the strategies work on the live context after it (View \u203A Whole History counts "
                               "every message).</p>");
        return html;
    }
    if (pos < 0) {
        html += QStringLiteral("<p>Not a conversation message: the analysis leaves it out.</p>");
        return html;
    }
    html += QStringLiteral("<p>Conversation position %1 of %2.</p>").arg(pos).arg(a.view.size());
    if (pos >= 1 && std::size_t(pos) - 1 < a.boundaries.size()) {
        const an::BoundaryScore &b = a.boundaries[std::size_t(pos) - 1];
        const bool chosen = a.boundary && *a.boundary == std::size_t(pos);
        html += QStringLiteral("<p><b>Cutting before it:</b> score <b>%1</b>%2 (%3)</p>")
                    .arg(num(b.score), chosen ? QStringLiteral(" — <b>the chosen boundary</b>") : QString(), esc(boundaryFlags(b)));
        html += reasonTable(an::reasonsFor(b, a.options));
    } else {
        html += QStringLiteral("<p><b>Cutting before it:</b> not possible (the first message).</p>");
    }
    if (std::size_t(pos) < a.importance.size()) {
        const an::Importance &imp = a.importance[std::size_t(pos)];
        html += QStringLiteral("<p><b>Importance:</b> %1%2</p>")
                    .arg(num(imp.score), imp.important ? QStringLiteral(" — important") : QStringLiteral(" — below the threshold"));
        html += reasonTable(an::reasonsFor(imp, a.options));
        html += QStringLiteral("<p><b>Points:</b> %1</p>").arg(imp.points);
        html += reasonTable(an::pointReasonsFor(imp));
    }
    html += QStringLiteral("<p><b>Tool round</b></p>") + roundHtml(a, i) + criticalHtml(a, i);
    return html;
}

QString AnalysisPanel::sessionHtml(const Transcript &t, const an::Analysis &a, bool)
{
    QString html = QStringLiteral("<h3>Session</h3>");
    const an::Features &f = a.features;
    html += QStringLiteral("<p><b>Features</b> — severity <b>%1</b></p><table cellspacing=\"0\" cellpadding=\"1\">").arg(esc(f.severity));
    html += row(QStringLiteral("messages"), tokens(std::int64_t(f.totalMessages)));
    // The target is compared with the live context (fixed part included), like the removal strategies
    // do; the features themselves are computed on the conversation's plain estimate.
    html += row(QStringLiteral("live context / target"), tokens(a.usage.tokens) + QStringLiteral(" / ") + tokens(f.targetTokens));
    html += row(QStringLiteral("conversation (plain estimate)"), tokens(f.totalTokens));
    html += row(QStringLiteral("compression ratio"), num(f.compressionRatio, 3));
    html += row(QStringLiteral("recent tokens (last 5)"), QStringLiteral("%1 (%2 of the total)").arg(tokens(f.recentTokens), num(f.recentRatio, 3)));
    html += row(QStringLiteral("average message"), num(f.avgMessageLength, 1) + QStringLiteral(" tokens"));
    html += row(QStringLiteral("long messages / system / tools"),
                QStringLiteral("%1 / %2 / %3").arg(yesNo(f.hasLongMessages), yesNo(f.hasSystem), yesNo(f.hasTool)));
    html += QStringLiteral("</table>");

    const an::Recommendation &r = a.recommendation;
    // Strategies by their titles ("Oldest removal"), as the Strategy dock lists them.
    const auto title = [](const std::string &name) {
        const strategy::Strategy *s = strategy::find(name);
        return s ? esc(s->title()) : esc(name);
    };
    html += QStringLiteral("<p><b>Recommended strategy: %1</b> (confidence %2, rule <code>%3</code>)</p>")
                .arg(title(r.strategy), num(r.confidence), esc(r.rule));
    html += QStringLiteral("<p>Model <code>%1</code>, provider %2: table entry %3.%4</p>")
                .arg(esc(r.model.empty() ? std::string_view("unknown") : std::string_view(r.model)),
                     esc(r.provider.empty() ? std::string_view("unknown") : std::string_view(r.provider)),
                     r.providerStrategy.empty() ? QStringLiteral("none") : QStringLiteral("<b>%1</b>").arg(title(r.providerStrategy)),
                     r.adaptiveReason.empty() ? QString() : QStringLiteral(" Adaptive because <code>%1</code>.").arg(esc(r.adaptiveReason)));
    html += reasonTable(r.reasons, false);
    // Beside the removal the rules pick: what the session's own agent would do when it compacts.
    const std::string_view agent = t.format == Format::ClaudeCode   ? "Claude Code"
                                   : t.format == Format::Codex      ? "Codex CLI"
                                   : t.format == Format::GeminiCli  ? "Gemini CLI"
                                   : t.format == Format::CopilotCli ? "Copilot CLI"
                                                                    : "";
    for (const strategy::Strategy *s : strategy::all())
        if (!agent.empty() && s->follows() == agent && s->group() == strategy::Group::Summary) {
            html += QStringLiteral("<p>This agent's own compaction: <b>%1</b> (Strategy dock, <i>Summarize</i>).</p>").arg(esc(s->title()));
            break;
        }

    const an::Zones &z = a.zones;
    html += QStringLiteral("<p><b>Zone triggers</b> (threshold %1)</p><table cellspacing=\"0\" cellpadding=\"1\">").arg(tokens(z.threshold));
    html += row(QStringLiteral("old: total"), QStringLiteral("%1 %2 %3 → %4")
                                                  .arg(tokens(z.totalTokens), z.oldTrigger ? QStringLiteral("≥") : QStringLiteral("&lt;"),
                                                       tokens(z.threshold), z.oldTrigger ? QStringLiteral("<b>compact</b>") : QStringLiteral("no compaction")));
    html += row(QStringLiteral("new: compressible"), QStringLiteral("%1 %2 %3 → %4")
                                                         .arg(tokens(z.compressibleTokens), z.newTrigger ? QStringLiteral("≥") : QStringLiteral("&lt;"),
                                                              tokens(z.threshold), z.newTrigger ? QStringLiteral("<b>compact</b>") : QStringLiteral("no compaction")));
    html += row(QStringLiteral("zones"), QStringLiteral("system %1 · compressible %2 · recent %3 (%4 messages)")
                                             .arg(tokens(z.systemTokens), tokens(z.compressibleTokens), tokens(z.recentTokens))
                                             .arg(z.recent.size()));
    html += QStringLiteral("</table>");

    html += QStringLiteral("<p><b>Compaction needed:</b> %1</p>").arg(yesNo(a.needs.needed));
    html += reasonTable(a.needs.reasons, false);

    const an::UsageInfo &u = a.usage;
    html += QStringLiteral("<p><b>Usage band:</b> <b>%1</b> — %2 / %3 tokens (%4 %), window from %5</p>")
                .arg(esc(u.band), tokens(u.tokens), tokens(u.window), num(u.ratio * 100, 1), esc(u.windowSource));

    if (a.boundary && *a.boundary < a.view.size() && *a.boundary >= 1 && *a.boundary - 1 < a.boundaries.size()) {
        const an::BoundaryScore &b = a.boundaries[*a.boundary - 1];
        html += QStringLiteral("<p><b>Chosen boundary:</b> before %1 (position %2), score %3 (%4)</p>")
                    .arg(link(b.index))
                    .arg(b.position)
                    .arg(num(b.score), esc(boundaryFlags(b)));
    } else {
        html += QStringLiteral("<p><b>Chosen boundary:</b> none (the search range is empty)</p>");
    }

    const an::Facts &fa = a.facts;
    html += QStringLiteral("<p><b>Facts:</b> %1 user requests, %2 files read, %3 modified, %4 commands, %5 errors</p>")
                .arg(fa.userRequests.size())
                .arg(fa.filesRead.size())
                .arg(fa.filesModified.size())
                .arg(fa.commands.size())
                .arg(fa.errors.size());
    const auto fact = [&](const QString &label, const std::string &text, std::int32_t index) {
        if (text.empty())
            return;
        // The head only: a request can be a 100 MB line, and this runs on the GUI thread.
        constexpr std::size_t kHead = 4096;
        QString shown = QString::fromUtf8(text.data(), qsizetype(std::min(text.size(), kHead))).simplified();
        if (shown.size() > 300 || text.size() > kHead)
            shown = shown.left(300) + u'…';
        html += QStringLiteral("<p>%1 %2: %3</p>")
                    .arg(label, index >= 0 ? link(std::size_t(index)) : QString(), esc(shown));
    };
    fact(QStringLiteral("<b>Pending task</b>"), fa.pendingTask, fa.pendingTaskIndex);
    fact(QStringLiteral("<b>Current work</b>"), fa.currentWork, fa.currentWorkIndex);
    if (!fa.filesModified.empty()) {
        QStringList files;
        for (std::size_t k = 0; k < fa.filesModified.size() && k < 12; ++k)
            files << QStringLiteral("<code>%1</code>").arg(esc(fa.filesModified[k]));
        html += QStringLiteral("<p>Modified: %1%2</p>")
                    .arg(files.join(QStringLiteral(", ")), fa.filesModified.size() > 12 ? QStringLiteral(", …") : QString());
    }
    return html;
}

} // namespace cl::gui
