// SPDX-License-Identifier: MIT
#include "widgets/models/requestlistmodel.h"

#include "widgets/models/roles.h"

#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <QLocale>

namespace cl::gui {

namespace {

QString fromStd(const std::string &s)
{
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QString count(std::int64_t n)
{
    return QLocale().toString(qlonglong(n));
}

// "2026-11-30T14:21:24.891Z" → "14:21:24"
// "append", "break: system prompt", "replaced", "first"
QString cacheText(const cost::CacheStep &s)
{
    switch (s.kind) {
    case cost::CacheStep::Kind::First: return RequestListModel::tr("first");
    case cost::CacheStep::Kind::Append:
        return s.missedTokens > 0 ? RequestListModel::tr("append, cache expired") : RequestListModel::tr("append");
    case cost::CacheStep::Kind::Break: return RequestListModel::tr("break: %1").arg(fromStd(s.where));
    case cost::CacheStep::Kind::Replaced: return RequestListModel::tr("break: conversation replaced");
    }
    return {};
}

QString clock(const std::string &time)
{
    const std::size_t t = time.find('T');
    return fromStd(t == std::string::npos ? time : time.substr(t + 1, 8));
}

} // namespace

QString dollarText(double dollars)
{
    if (dollars > 0 && dollars < 0.0001)
        return QStringLiteral("<$0.0001");
    return QStringLiteral("$%1").arg(dollars, 0, 'f', dollars < 1 ? 4 : 2);
}

RequestListModel::RequestListModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void RequestListModel::setRequests(std::vector<RequestSummary> requests, std::vector<cost::CacheStep> steps)
{
    beginResetModel();
    m_requests = std::move(requests);
    m_steps = std::move(steps);
    endResetModel();
}

const cost::CacheStep *RequestListModel::stepOf(std::size_t number) const
{
    const auto it = std::lower_bound(m_steps.begin(), m_steps.end(), number,
                                     [](const cost::CacheStep &s, std::size_t n) { return s.number < n; });
    return it != m_steps.end() && it->number == number ? &*it : nullptr;
}

void RequestListModel::setCurrent(std::size_t number)
{
    const int before = rowOfNumber(m_current);
    m_current = number;
    for (const int row : {before, rowOfNumber(number)})
        if (row >= 0)
            Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1), {Qt::FontRole});
}

const RequestSummary *RequestListModel::requestAt(int row) const
{
    return row >= 0 && std::size_t(row) < m_requests.size() ? &m_requests[std::size_t(row)] : nullptr;
}

int RequestListModel::rowOfNumber(std::size_t number) const
{
    // Numbered from 1 in file order, one row each.
    return number >= 1 && number <= m_requests.size() && m_requests[number - 1].number == number ? int(number - 1) : -1;
}

int RequestListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_requests.size());
}

int RequestListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RequestListModel::display(const RequestSummary &r, int column) const
{
    const bool call = r.api != Format::Unknown;
    switch (column) {
    case NumberColumn: return QString::number(r.number);
    case TimeColumn: return clock(r.time);
    case ApiColumn: return call ? fromStd(std::string(formatName(r.api))) : fromStd(r.method + " " + r.path);
    case ModelColumn: return fromStd(r.model);
    case KindColumn:
        if (!r.compaction.empty())
            return tr("compaction");
        if (r.rewrite && r.rewrite->forwarded)
            return tr("compacted on the wire");
        if (r.rewrite && r.rewrite->changed)
            return tr("dry run");
        return {};
    case MessagesColumn: return call ? QVariant(count(std::int64_t(r.messages))) : QVariant();
    case ToolsColumn: return call ? QVariant(count(std::int64_t(r.tools))) : QVariant();
    case EstimateColumn: return call ? QVariant(count(r.estimate)) : QVariant();
    case MeasuredColumn: return r.usage ? QVariant(count(r.usage->contextTokens())) : QVariant();
    case CacheReadColumn: return r.usage ? QVariant(count(r.usage->cacheReadTokens)) : QVariant();
    case CacheWrittenColumn: return r.usage ? QVariant(count(r.usage->cacheCreationTokens)) : QVariant();
    case OutputColumn: return r.usage ? QVariant(count(r.usage->outputTokens)) : QVariant();
    case CacheColumn:
        if (const cost::CacheStep *s = stepOf(r.number))
            return cacheText(*s);
        return {};
    case CacheCostColumn:
        if (const cost::CacheStep *s = stepOf(r.number); s && s->priced && s->dollars > 0)
            return dollarText(s->dollars);
        return {};
    case StatusColumn: return r.status ? QVariant(QString::number(r.status)) : QVariant(tr("none"));
    case DurationColumn: return r.totalMs ? QVariant(tr("%1 ms").arg(count(*r.totalMs))) : QVariant();
    case SessionColumn: return r.sessionMessage >= 0 ? QVariant(QStringLiteral("#%1").arg(r.sessionMessage + 1)) : QVariant();
    default: return {};
    }
}

QVariant RequestListModel::sortKey(const RequestSummary &r, int column) const
{
    switch (column) {
    case NumberColumn: return double(r.number);
    case MessagesColumn: return double(r.messages);
    case ToolsColumn: return double(r.tools);
    case EstimateColumn: return double(r.estimate);
    case MeasuredColumn: return r.usage ? QVariant(double(r.usage->contextTokens())) : QVariant();
    case CacheReadColumn: return r.usage ? QVariant(double(r.usage->cacheReadTokens)) : QVariant();
    case CacheWrittenColumn: return r.usage ? QVariant(double(r.usage->cacheCreationTokens)) : QVariant();
    case OutputColumn: return r.usage ? QVariant(double(r.usage->outputTokens)) : QVariant();
    case CacheCostColumn:
        if (const cost::CacheStep *s = stepOf(r.number))
            return s->dollars;
        return {};
    case StatusColumn: return double(r.status);
    case DurationColumn: return r.totalMs ? QVariant(double(*r.totalMs)) : QVariant();
    case SessionColumn: return r.sessionMessage >= 0 ? QVariant(double(r.sessionMessage)) : QVariant();
    default: return {};
    }
}

QString RequestListModel::toolTip(const RequestSummary &r) const
{
    QString tip = tr("Request %1: %2 %3").arg(QString::number(r.number), fromStd(r.method), fromStd(r.path));
    if (r.api != Format::Unknown) {
        tip += u'\n'
               + tr("Sent: system prompt %1, %2 tool definitions %3, %4 messages %5 (estimated)")
                     .arg(count(r.systemTokens), count(std::int64_t(r.tools)), count(r.toolTokens),
                          count(std::int64_t(r.messages)), count(r.messageTokens));
        if (r.usage)
            tip += u'\n'
                   + tr("Measured by the provider: %1 tokens (%2 uncached, %3 read from the cache, %4 written to it), %5 out")
                         .arg(count(r.usage->contextTokens()), count(r.usage->inputTokens), count(r.usage->cacheReadTokens),
                              count(r.usage->cacheCreationTokens), count(r.usage->outputTokens));
        if (r.answerBlocks)
            tip += u'\n' + tr("Answer: %1 blocks, %2 tool calls, stop: %3").arg(count(std::int64_t(r.answerBlocks)), count(std::int64_t(r.answerToolCalls)), fromStd(r.stopReason));
        if (!r.compaction.empty())
            tip += u'\n' + tr("%1: the agent asked the model for a summary of the conversation").arg(fromStd(r.compaction));
        if (const auto &w = r.rewrite; w && w->changed)
            tip += u'\n'
                   + tr("Compaction on the wire (%1, %2): %3 \u2192 %4 tokens predicted; %5")
                         .arg(fromStd(w->strategy), fromStd(w->mode), count(w->predictedBefore), count(w->predictedAfter),
                              w->forwarded ? tr("the compacted request was sent") : tr("the agent's request was sent"));
        tip += u'\n' + tr("Double-click or Enter opens it.");
    }
    if (const cost::CacheStep *s = stepOf(r.number); s && !s->cause.empty()) {
        tip += u'\n' + tr("Prompt cache: %1").arg(fromStd(s->cause));
        if (s->missedTokens > 0)
            tip += u'\n' + tr("%1 tokens the request before left in the cache were not read").arg(count(s->missedTokens));
    }
    if (!r.error.empty())
        tip += u'\n' + fromStd(r.error);
    return tip;
}

QVariant RequestListModel::data(const QModelIndex &index, int role) const
{
    const RequestSummary *r = index.isValid() ? requestAt(index.row()) : nullptr;
    if (!r)
        return {};
    switch (role) {
    case Qt::DisplayRole: return display(*r, index.column());
    case SortRole: return sortKey(*r, index.column());
    case Qt::ToolTipRole: return toolTip(*r);
    case Qt::TextAlignmentRole:
        return index.column() >= MessagesColumn ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case Qt::FontRole:
        if (r->number == m_current) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ForegroundRole:
        if (const cost::CacheStep *s = stepOf(r->number); index.column() == CacheColumn && s && s->missedTokens > 0)
            return QColor(0xe0, 0x53, 0x3d); // a cache break: the colour of problems elsewhere
        // Not a model call, or it failed: greyed (the palette's disabled text).
        if (r->api == Format::Unknown || !r->error.empty())
            return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
        return {};
    default: return {};
    }
}

QVariant RequestListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case EstimateColumn: return tr("ContextLens's figure for the request: system prompt, tools and messages, in the agent's count");
        case MeasuredColumn: return tr("What the provider counted for the request: uncached input + cache read + cache written");
        case CacheReadColumn: return tr("Input tokens read from the prompt cache");
        case CacheWrittenColumn: return tr("Input tokens written to the prompt cache");
        case DurationColumn: return tr("From the request's arrival to the end of the answer");
        case KindColumn: return tr("The agent's own compaction: the request that asked the model to summarise the conversation");
        case SessionColumn: return tr("The message of the session file the agent wrote that is this request's answer");
        case CacheColumn: return tr("Whether the request only appended to the one before it (the cache reads all of that), or where it changed the prefix: the cache breaks there");
        case CacheCostColumn: return tr("What the tokens left in the cache but not read cost, written again or sent uncached instead of read");
        default: return {};
        }
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NumberColumn: return tr("#");
    case TimeColumn: return tr("Time");
    case ApiColumn: return tr("API");
    case ModelColumn: return tr("Model");
    case KindColumn: return tr("Kind");
    case MessagesColumn: return tr("Messages");
    case ToolsColumn: return tr("Tools");
    case EstimateColumn: return tr("Estimate");
    case MeasuredColumn: return tr("Measured");
    case CacheReadColumn: return tr("Cache read");
    case CacheWrittenColumn: return tr("Cache written");
    case OutputColumn: return tr("Output");
    case CacheColumn: return tr("Prompt cache");
    case CacheCostColumn: return tr("Cache cost");
    case StatusColumn: return tr("Status");
    case DurationColumn: return tr("Time taken");
    case SessionColumn: return tr("In session");
    default: return {};
    }
}

} // namespace cl::gui
