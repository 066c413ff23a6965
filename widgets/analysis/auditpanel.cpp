// SPDX-License-Identifier: MIT
#include "widgets/analysis/auditpanel.h"
#include "widgets/models/qtext.h"

#include "core/io/backups.h"
#include "core/io/recordedrequest.h"

#include <QDateTime>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QPushButton>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QUrl>
#include <QVBoxLayout>

namespace cl::gui {

namespace {

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(QLocale().toString(100.0 * share, 'f', 0));
}

// The start of a text: a line of 100 MB is not converted only to show 200 characters of it.
QString head(std::string_view s)
{
    return qs(s.substr(0, 1024));
}

// The first line of a message's text, or its first tool call / result.
QString firstLine(const Message &m)
{
    for (const Block &b : m.blocks) {
        if (b.type == BlockType::ToolUse)
            return AuditPanel::tr("call %1").arg(qs(b.toolName));
        if (b.type == BlockType::ToolResult)
            return AuditPanel::tr("result of %1: %2").arg(qs(b.toolName), head(b.text).section(u'\n', 0, 0).left(160));
        if (!b.text.empty())
            return head(b.text).section(u'\n', 0, 0).left(200);
    }
    return QString();
}

QString factLine(const strategy::Fact &f, const QString &colour)
{
    QString sources;
    for (std::size_t s : f.sources)
        sources += QStringLiteral(" <a href=\"msg:%1\">#%2</a>").arg(s).arg(s + 1);
    return QStringLiteral("<li><span style=\"color:%1\">[%2]</span> %3 <small>%4</small></li>")
        .arg(colour, qs(strategy::factKindName(f.kind)), qs(f.text).toHtmlEscaped(), sources);
}

constexpr int MessageRole = Qt::UserRole + 1;

// What the recording shows of the compaction: the request that asked for the summary, what it
// sent, and which of the dropped facts it never sent.
QString wireHtml(const audit::Compaction &c)
{
    if (!c.wire)
        return QString();
    const recording::CompactionCall &w = c.wire->call;
    const QLocale loc;
    QString html = QStringLiteral("<p><b>") + AuditPanel::tr("On the wire") + QStringLiteral("</b>: ");
    html += AuditPanel::tr("<a href=\"request:%1\">request %1</a> of the recording (%2)").arg(w.request).arg(qs(w.agent).toHtmlEscaped());
    if (c.wire->calls > 1)
        html += AuditPanel::tr(", which checked the snapshot of request %1").arg(c.wire->firstRequest);
    html += QStringLiteral(": ") + AuditPanel::tr("%n message(s) sent", nullptr, int(w.messagesSent));
    if (w.usage)
        html += AuditPanel::tr(", %1 tokens measured, %2 answered").arg(loc.toString(qlonglong(w.usage->contextTokens())), loc.toString(qlonglong(w.usage->outputTokens)));
    html += QStringLiteral(".");
    if (!c.dropped.empty())
        html += QStringLiteral(" ")
                + AuditPanel::tr("Of the %1 dropped facts: %2 in front of the model and left out of the summary, %3 never sent.")
                      .arg(c.dropped.size())
                      .arg(c.dropped.size() - c.wire->notSent.size())
                      .arg(c.wire->notSent.size());
    html += QStringLiteral("</p>");
    if (!c.wire->notSent.empty()) {
        html += QStringLiteral("<p>") + AuditPanel::tr("Never sent to be summarised:") + QStringLiteral("</p><ul>");
        for (const auto &f : c.wire->notSent)
            html += factLine(f, QStringLiteral("#ef6c00"));
        html += QStringLiteral("</ul>");
    }
    return html;
}

// The snapshot the compaction hook took just before it: the exact state the agent summarised.
QString snapshotHtml(const audit::Compaction &c)
{
    if (!c.snapshot)
        return QString();
    const audit::HookSnapshot &h = *c.snapshot;
    const QLocale loc;
    QString html = QStringLiteral("<p><b>") + AuditPanel::tr("Snapshot before it") + QStringLiteral("</b>: ");
    html += AuditPanel::tr("taken by the %1 hook at %2, %3 tokens live in %n message(s)", nullptr, int(h.before.liveMessages))
                .arg(qs(h.before.event).toHtmlEscaped(), loc.toString(QDateTime::fromMSecsSinceEpoch(h.before.timeMs), QLocale::ShortFormat),
                     loc.toString(qlonglong(h.before.liveTokens)));
    if (!h.readable) {
        html += QStringLiteral(". ") + AuditPanel::tr("The copy is no longer kept.") + QStringLiteral("</p>");
        return html;
    }
    html += QStringLiteral(". ")
            + AuditPanel::tr("The summary kept %1 of its %2 facts.").arg(h.factsKept).arg(h.factsKept + h.dropped.size())
            + QStringLiteral(" <small>") + qs(h.before.snapshot).toHtmlEscaped() + QStringLiteral("</small></p>");
    if (!h.onlyInSnapshot.empty()) {
        html += QStringLiteral("<p>") + AuditPanel::tr("Dropped, and no longer in the session file:") + QStringLiteral("</p><ul>");
        for (const auto &f : h.onlyInSnapshot)
            html += factLine(f, QStringLiteral("#c62828"));
        html += QStringLiteral("</ul>");
    }
    return html;
}

} // namespace

AuditPanel::AuditPanel(QWidget *parent)
    : QWidget(parent)
    , m_header(new QLabel(this))
    , m_recordingButton(new QPushButton(tr("Link a Recording…"), this))
    , m_list(new QTreeWidget(this))
    , m_history(new QListWidget(this))
    , m_summary(new QTextBrowser(this))
    , m_strategies(new QTreeWidget(this))
{
    setObjectName(QStringLiteral("auditPanel"));
    m_header->setWordWrap(true);
    m_recordingButton->setObjectName(QStringLiteral("auditRecording"));
    m_recordingButton->setToolTip(tr("A recording of the agent (File › Record an Agent…): each compaction is linked to the "
                                     "request that asked for its summary, showing what the agent really sent"));
    connect(m_recordingButton, &QPushButton::clicked, this, &AuditPanel::chooseRecording);
    m_list->setObjectName(QStringLiteral("auditCompactions"));
    m_list->setRootIsDecorated(false);
    m_list->setHeaderLabels({tr("#"), tr("At message"), tr("When"), tr("Trigger"), tr("Tokens before \u2192 after"), tr("Facts kept"),
                             tr("Request")});
    m_list->setToolTip(tr("Every compaction the agent made: before is recorded (compactMetadata.preTokens) where the agent "
                          "wrote it, else estimated (fixed part + replaced history); after is the summary and what the agent kept"));
    m_history->setObjectName(QStringLiteral("auditHistory"));
    m_history->setUniformItemSizes(true);
    m_history->setToolTip(tr("The history this compaction replaced; double-click a message to show it in the transcript"));
    m_summary->setObjectName(QStringLiteral("auditSummary"));
    m_summary->setOpenLinks(false);
    m_strategies->setObjectName(QStringLiteral("auditStrategies"));
    m_strategies->setRootIsDecorated(false);
    m_strategies->setHeaderLabels({tr("Who"), tr("Tokens after"), tr("Facts kept"), tr("Note")});
    m_strategies->setToolTip(tr("The agent's compaction, then what each strategy makes of the same history (forced past its trigger)"));

    auto *replaced = new QWidget(this);
    auto *replacedLayout = new QVBoxLayout(replaced);
    replacedLayout->setContentsMargins(0, 0, 0, 0);
    auto *replacedTitle = new QLabel(tr("<b>Replaced history</b>"), replaced);
    replacedTitle->setWordWrap(true); // the dock may be narrow
    replacedLayout->addWidget(replacedTitle);
    replacedLayout->addWidget(m_history, 1);
    auto *written = new QWidget(this);
    auto *writtenLayout = new QVBoxLayout(written);
    writtenLayout->setContentsMargins(0, 0, 0, 0);
    auto *writtenTitle = new QLabel(tr("<b>What the agent sent instead</b>"), written);
    writtenTitle->setWordWrap(true);
    writtenLayout->addWidget(writtenTitle);
    writtenLayout->addWidget(m_summary, 1);
    auto *sideBySide = new QSplitter(Qt::Horizontal, this);
    sideBySide->addWidget(replaced);
    sideBySide->addWidget(written);
    sideBySide->setChildrenCollapsible(false);
    auto *rows = new QSplitter(Qt::Vertical, this);
    rows->addWidget(m_list);
    rows->addWidget(sideBySide);
    rows->addWidget(m_strategies);
    rows->setStretchFactor(0, 1);
    rows->setStretchFactor(1, 3);
    rows->setStretchFactor(2, 2);
    rows->setChildrenCollapsible(false);
    // Small minimums: the dock sits under the transcript beside the usage chart and must not make
    // that row tall (a 700 px high window keeps room for the transcript).
    const int line = fontMetrics().height();
    for (QWidget *w : {static_cast<QWidget *>(m_list), static_cast<QWidget *>(sideBySide), static_cast<QWidget *>(m_strategies)})
        w->setMinimumHeight(3 * line);
    auto *layout = new QVBoxLayout(this);
    auto *top = new QHBoxLayout;
    top->addWidget(m_header, 1);
    top->addWidget(m_recordingButton);
    layout->addLayout(top);
    layout->addWidget(rows, 1);

    connect(m_list, &QTreeWidget::currentItemChanged, this,
            [this](QTreeWidgetItem *item) { showCompaction(item ? m_list->indexOfTopLevelItem(item) : -1); });
    connect(m_history, &QListWidget::itemActivated, this,
            [this](QListWidgetItem *item) { Q_EMIT messageActivated(item->data(MessageRole).toInt()); });
    connect(m_summary, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        if (url.scheme() == QStringLiteral("msg"))
            Q_EMIT messageActivated(url.path().toInt());
        else if (url.scheme() == QStringLiteral("request") && !m_recording.isEmpty())
            Q_EMIT requestActivated(QString::fromStdString(requestPath(m_recording.toStdString(), std::size_t(url.path().toULongLong()))));
    });
    setTranscript(nullptr);
}

AuditPanel::~AuditPanel() = default;

void AuditPanel::setTranscript(std::shared_ptr<const Transcript> transcript)
{
    m_transcript = std::move(transcript);
    if (m_transcript != m_computedFor)
        m_job.cancel();
    startWork();
    if (!m_transcript)
        setCompactions({});
}

void AuditPanel::setActive(bool active)
{
    m_active = active;
    startWork();
}

AuditPanel::Result AuditPanel::compute(const Transcript &t, const std::string &recording)
{
    Result r;
    audit::Options o;
    if (!recording.empty() && !readCompactionCalls(recording, o.wire, r.error))
        o.wire.clear();
    o.hooks = compactionhook::records(backups::defaultRoot(), t.path);
    r.list = audit::auditCompactions(t, o);
    return r;
}

void AuditPanel::setRecording(const QString &file)
{
    if (file == m_recording)
        return;
    m_recording = file;
    m_recordingButton->setText(file.isEmpty() ? tr("Link a Recording\u2026") : tr("Recording: %1").arg(QFileInfo(file).fileName()));
    m_job.cancel();
    startWork();
}

void AuditPanel::chooseRecording()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Link a Recording"), m_recording.isEmpty() ? QString() : QFileInfo(m_recording).path(),
                                                      tr("Recordings (*.jsonl);;All files (*)"));
    if (!file.isEmpty())
        setRecording(file);
}

void AuditPanel::startWork()
{
    if (!m_active || !m_transcript || m_job.isRunning() || (m_transcript == m_computedFor && m_recording == m_computedRecording))
        return;
    auto t = m_transcript;
    const QString recording = m_recording;
    m_header->setText(tr("Auditing the compactions\u2026"));
    m_job.start([t, recording](JobControl &) { return compute(*t, recording.toStdString()); },
                [this, t, recording](Result r) {
                    m_computedFor = t;
                    m_computedRecording = recording;
                    m_recordingError = QString::fromStdString(r.error);
                    setCompactions(std::move(r.list));
                    startWork(); // the transcript or the recording may have changed meanwhile
                });
}

void AuditPanel::refreshNow()
{
    if (!m_transcript || (m_transcript == m_computedFor && m_recording == m_computedRecording))
        return;
    m_job.cancel();
    m_computedFor = m_transcript;
    m_computedRecording = m_recording;
    Result r = compute(*m_transcript, m_recording.toStdString());
    m_recordingError = QString::fromStdString(r.error);
    setCompactions(std::move(r.list));
}

void AuditPanel::setCompactions(std::vector<audit::Compaction> list)
{
    m_compactions = std::move(list);
    m_list->clear();
    const QLocale loc;
    std::size_t dropped = 0;
    for (std::size_t k = 0; k < m_compactions.size(); ++k) {
        const audit::Compaction &c = m_compactions[k];
        dropped += c.dropped.size();
        auto *item = new QTreeWidgetItem(m_list);
        item->setText(0, QString::number(k + 1));
        item->setText(1, QString::number(c.boundary));
        const QDateTime when = c.timeMs != kNoTime ? QDateTime::fromMSecsSinceEpoch(c.timeMs) : QDateTime();
        item->setText(2, when.isValid() ? loc.toString(when, QLocale::ShortFormat) : qs(c.timestamp));
        item->setText(3, c.trigger.empty() ? tr("\u2014") : qs(c.trigger));
        item->setText(4, QStringLiteral("%1 \u2192 %2%3")
                             .arg(loc.toString(qlonglong(c.tokensBefore)), loc.toString(qlonglong(c.tokensAfter)),
                                  c.beforeRecorded ? QString() : tr(" (before estimated)")));
        item->setText(5, c.factsTotal() ? QStringLiteral("%1 / %2 (%3)").arg(c.kept.size()).arg(c.factsTotal()).arg(percent(c.factRetention()))
                                        : tr("no facts"));
        if (!c.dropped.empty())
            item->setToolTip(5, tr("%n fact(s) dropped", nullptr, int(c.dropped.size())));
        if (c.wire)
            item->setText(6, QStringLiteral("#%1").arg(c.wire->call.request));
        else if (!m_recording.isEmpty())
            item->setText(6, tr("not found"));
    }
    for (int col = 0; col < m_list->columnCount(); ++col)
        m_list->resizeColumnToContents(col);
    if (!m_transcript)
        m_header->setText(tr("No transcript"));
    else if (m_compactions.empty())
        m_header->setText(tr("No compaction in this session: nothing was replaced yet."));
    else
        m_header->setText(tr("%n compaction(s); the agent's summaries dropped %1 fact(s) of what they replaced.", nullptr,
                             int(m_compactions.size()))
                              .arg(dropped));
    if (!m_recordingError.isEmpty())
        m_header->setText(m_header->text() + u' ' + tr("The recording could not be read: %1").arg(m_recordingError));
    if (!m_compactions.empty())
        m_list->setCurrentItem(m_list->topLevelItem(int(m_compactions.size()) - 1)); // the latest: what the model sees
    else
        showCompaction(-1);
    Q_EMIT auditUpdated();
}

void AuditPanel::selectCompaction(int index)
{
    if (index >= 0 && index < m_list->topLevelItemCount())
        m_list->setCurrentItem(m_list->topLevelItem(index));
}

int AuditPanel::selectedCompaction() const
{
    return m_list->currentItem() ? m_list->indexOfTopLevelItem(m_list->currentItem()) : -1;
}

void AuditPanel::showCompaction(int index)
{
    m_history->clear();
    m_summary->clear();
    m_strategies->clear();
    if (index < 0 || index >= int(m_compactions.size()) || !m_transcript)
        return;
    const audit::Compaction &c = m_compactions[std::size_t(index)];
    const Transcript &t = *m_transcript;
    for (std::size_t i = c.from; i < c.boundary && i < t.messages.size(); ++i) {
        const Message &m = t.messages[i];
        if (!m.isTurn() || m.sidechain)
            continue;
        auto *item = new QListWidgetItem(QStringLiteral("#%1  %2: %3").arg(i + 1).arg(qs(roleName(m.role)), firstLine(m)), m_history);
        item->setData(MessageRole, int(i));
    }
    QString html;
    html += QStringLiteral("<p>") + tr("Facts of the replaced history the agent kept: %1 of %2.").arg(c.kept.size()).arg(c.factsTotal());
    if (c.pending)
        html += QStringLiteral(" ") + (c.pendingKept ? tr("The pending request is in it.") : tr("<b>The pending request is not.</b>"));
    html += QStringLiteral("</p>");
    html += snapshotHtml(c); // the exact state summarised comes first: the lists below are of it
    if (!c.dropped.empty()) {
        html += QStringLiteral("<p><b>") + tr("Dropped") + QStringLiteral("</b></p><ul>");
        for (const auto &f : c.dropped)
            html += factLine(f, QStringLiteral("#c62828"));
        html += QStringLiteral("</ul>");
    }
    if (!c.kept.empty()) {
        html += QStringLiteral("<p><b>") + tr("Kept") + QStringLiteral("</b></p><ul>");
        for (const auto &f : c.kept)
            html += factLine(f, QStringLiteral("#2e7d32"));
        html += QStringLiteral("</ul>");
    }
    html += wireHtml(c);
    html += QStringLiteral("<p><b>") + tr("Summary") + QStringLiteral("</b>");
    if (!c.keptMessages.empty())
        html += tr(" (and %n message(s) kept as they were)", nullptr, int(c.keptMessages.size()));
    html += QStringLiteral("</p><pre style=\"white-space: pre-wrap\">")
            + (c.summary.empty() ? tr("(the agent wrote no summary)") : qs(c.summary).toHtmlEscaped()) + QStringLiteral("</pre>");
    m_summary->setHtml(html);

    const QLocale loc;
    auto *agent = new QTreeWidgetItem(m_strategies);
    agent->setText(0, tr("The agent's compaction"));
    agent->setText(1, loc.toString(qlonglong(c.tokensAfter)));
    agent->setText(2, c.factsTotal() ? percent(c.factRetention()) : tr("\u2014"));
    agent->setText(3, tr("before: %1 tokens (%2)").arg(loc.toString(qlonglong(c.tokensBefore)), c.beforeRecorded ? tr("recorded") : tr("estimated")));
    QFont bold = agent->font(0);
    bold.setBold(true);
    for (int col = 0; col < 4; ++col)
        agent->setFont(col, bold);
    for (const audit::StrategyRow &r : c.strategies) {
        auto *item = new QTreeWidgetItem(m_strategies);
        item->setText(0, qs(r.title.empty() ? r.strategy : r.title));
        item->setToolTip(0, qs(r.strategy));
        item->setText(1, r.error.empty() ? loc.toString(qlonglong(r.tokensAfter)) : QString());
        item->setText(2, r.error.empty() && r.factsTotal ? percent(r.factRetention) : tr("\u2014"));
        item->setText(3, qs(r.error.empty() ? r.note : r.error));
        item->setToolTip(2, tr("%1 of %2 facts").arg(r.factsKept).arg(r.factsTotal));
    }
    for (int col = 0; col < 3; ++col)
        m_strategies->resizeColumnToContents(col);
}

} // namespace cl::gui
