// SPDX-License-Identifier: MIT
#include "widgets/models/comparemodel.h"
#include "widgets/models/qtext.h"
#include "core/strategies/registry.h"
#include "widgets/models/strategylabels.h"

#include <QLocale>

#include <algorithm>
#include <cmath>
#include <optional>

namespace cl::gui {

namespace {

QString percent(double share)
{
    return QStringLiteral("%1 %").arg(QLocale().toString(100.0 * share, 'f', 1));
}

// The model calls of a "NAME+model" row and their cost (null: a price unknown); nullopt for other rows.
struct ModelCost {
    std::size_t calls = 0;
    std::optional<double> dollars;
};
std::optional<ModelCost> modelCost(const strategy::Result &r)
{
    if (!r.extra.is_object() || !r.extra.contains("modelCalls"))
        return std::nullopt;
    ModelCost c;
    c.calls = r.extra["modelCalls"].get<std::size_t>();
    if (const auto it = r.extra.find("modelCost"); it != r.extra.end() && it->is_number())
        c.dollars = it->get<double>();
    return c;
}

QString costText(const ModelCost &c)
{
    if (c.calls == 0)
        return CompareModel::tr("no call");
    const QString cost = c.dollars ? QStringLiteral("$%1").arg(QLocale().toString(*c.dollars, 'f', 4))
                                   : CompareModel::tr("price unknown");
    return c.calls == 1 ? CompareModel::tr("%1 (1 call)").arg(cost) : CompareModel::tr("%1 (%2 calls)").arg(cost).arg(c.calls);
}

} // namespace

QString validityText(const strategy::CompareRow &row)
{
    if (!row.error.empty())
        return CompareModel::tr("error");
    const auto n = row.result.violations.size();
    if (n == 0)
        return QStringLiteral("\u2713");
    return n == 1 ? CompareModel::tr("1 violation") : CompareModel::tr("%1 violations").arg(n);
}

CompareModel::CompareModel(QObject *parent)
    : QAbstractTableModel(parent)
{
    resetFromRegistry();
}

void CompareModel::resetFromRegistry()
{
    std::vector<Entry> next;
    for (const strategy::Strategy *s : strategy::all()) {
        Entry e;
        e.name = QString::fromUtf8(s->name().data(), qsizetype(s->name().size()));
        e.title = QString::fromUtf8(s->title().data(), qsizetype(s->title().size()));
        e.source = strategyKind(*s);
        const int old = rowOf(e.name);
        const int oldModel = rowOf(e.name + QStringLiteral("+model"));
        if (old >= 0) {
            e.checked = m_entries[std::size_t(old)].checked;
            e.row = m_entries[std::size_t(old)].row;
        }
        next.push_back(std::move(e));
        if (oldModel >= 0)
            next.push_back(m_entries[std::size_t(oldModel)]);
    }
    beginResetModel();
    m_entries = std::move(next);
    endResetModel();
}

void CompareModel::dropModelEntries()
{
    m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(), [](const Entry &e) { return !e.base.isEmpty(); }),
                    m_entries.end());
}

void CompareModel::setRows(std::vector<strategy::CompareRow> rows)
{
    beginResetModel();
    dropModelEntries();
    for (Entry &e : m_entries)
        e.row.reset();
    for (strategy::CompareRow &r : rows) {
        const QString name = qs(r.strategy);
        auto it = std::find_if(m_entries.begin(), m_entries.end(), [&](const Entry &e) { return e.name == name; });
        const QString base = qs(strategy::modelRowBase(r.strategy));
        const auto baseIt = base.isEmpty() ? m_entries.end()
                                           : std::find_if(m_entries.begin(), m_entries.end(),
                                                          [&](const Entry &e) { return e.name == base; });
        if (it == m_entries.end() && baseIt != m_entries.end()) {
            Entry e;
            e.name = name;
            e.base = base;
            e.title = tr("%1 + model").arg(baseIt->title);
            e.source = tr("summaries by the model");
            e.checked = false;
            it = m_entries.insert(std::next(baseIt), std::move(e));
        } else if (it == m_entries.end()) {
            Entry e;
            e.name = name;
            e.title = r.title.empty() ? name : qs(r.title);
            const strategy::Strategy *s = strategy::find(r.strategy);
            e.source = s ? strategyKind(*s) : QString();
            m_entries.push_back(std::move(e));
            it = std::prev(m_entries.end());
        }
        it->row = std::move(r);
    }
    endResetModel();
}

void CompareModel::clearResults()
{
    if (std::none_of(m_entries.begin(), m_entries.end(), [](const Entry &e) { return e.row.has_value(); }))
        return;
    beginResetModel();
    dropModelEntries();
    for (Entry &e : m_entries)
        e.row.reset();
    endResetModel();
}

std::vector<strategy::CompareRow> CompareModel::rows() const
{
    std::vector<strategy::CompareRow> out;
    for (const Entry &e : m_entries)
        if (e.row)
            out.push_back(*e.row);
    return out;
}

const strategy::CompareRow *CompareModel::rowFor(const QString &name) const
{
    const int r = rowOf(name);
    return r >= 0 && m_entries[std::size_t(r)].row ? &*m_entries[std::size_t(r)].row : nullptr;
}

int CompareModel::rowOf(const QString &name) const
{
    for (std::size_t i = 0; i < m_entries.size(); ++i)
        if (m_entries[i].name == name)
            return int(i);
    return -1;
}

QString CompareModel::nameAt(int row) const
{
    return row >= 0 && row < int(m_entries.size()) ? m_entries[std::size_t(row)].name : QString();
}

bool CompareModel::isModelRow(int row) const
{
    return row >= 0 && row < int(m_entries.size()) && !m_entries[std::size_t(row)].base.isEmpty();
}

QStringList CompareModel::checkedNames() const
{
    QStringList out;
    for (const Entry &e : m_entries)
        if (e.checked && e.base.isEmpty())
            out << e.name;
    return out;
}

void CompareModel::setChecked(const QString &name, bool checked)
{
    const int r = rowOf(name);
    if (r < 0 || isModelRow(r) || m_entries[std::size_t(r)].checked == checked)
        return;
    m_entries[std::size_t(r)].checked = checked;
    const QModelIndex i = index(r, StrategyColumn);
    Q_EMIT dataChanged(i, i, {Qt::CheckStateRole});
}

void CompareModel::setAllChecked(bool checked)
{
    for (const Entry &e : m_entries)
        setChecked(e.name, checked);
}

int CompareModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_entries.size());
}

int CompareModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags CompareModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == StrategyColumn && !isModelRow(index.row()))
        f |= Qt::ItemIsUserCheckable;
    return f;
}

bool CompareModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid) || index.column() != StrategyColumn
        || role != Qt::CheckStateRole)
        return false;
    setChecked(m_entries[std::size_t(index.row())].name, value.toInt() == Qt::Checked);
    return true;
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return QAbstractTableModel::headerData(section, orientation, role);
    static const char *const titles[ColumnCount] = {QT_TR_NOOP("Strategy"), QT_TR_NOOP("Kind"),
                                                    QT_TR_NOOP("Changed"), QT_TR_NOOP("Live context before \u2192 after"), QT_TR_NOOP("Reduction"),
                                                    QT_TR_NOOP("Messages"), QT_TR_NOOP("Efficiency"), QT_TR_NOOP("Facts kept"), QT_TR_NOOP("Model cost"), QT_TR_NOOP("Next turn $"), QT_TR_NOOP("Next N turns $"), QT_TR_NOOP("Cache prefix"),
                                                    QT_TR_NOOP("Valid"), QT_TR_NOOP("Time"), QT_TR_NOOP("Note")};
    static const char *const tips[ColumnCount] = {QT_TR_NOOP("Strategy title (registry name); tick to include it in a run"),
                                                  QT_TR_NOOP("What the strategy does, and whose policy it follows"), QT_TR_NOOP("Whether the strategy changed anything"),
                                                  QT_TR_NOOP("The live context before and after, in the agent's count with the fixed part (what the gauge shows once applied)"),
                                                  QT_TR_NOOP("1 \u2212 after / before, of the live context"), QT_TR_NOOP("Conversation messages after (before in the tooltip)"),
                                                  QT_TR_NOOP("Efficiency: 0.6 \u00d7 reduction + 0.4 \u00d7 messages kept / before"),
                                                  QT_TR_NOOP("Facts (requests, files, commands, errors) still present"),
                                                  QT_TR_NOOP("What the model's summaries cost (rows \"+ model\": the strategy rerun with the model writing its summaries)"),
                                                  QT_TR_NOOP("Dollars of the next request after the strategy: the unchanged prefix read from the prompt cache, the rest written to it"),
                                                  QT_TR_NOOP("Dollars of the next N requests (Cost over N turns), each adding the session's measured growth and output"),
                                                  QT_TR_NOOP("Tokens of the leading messages left byte-identical (prompt cache survives)"),
                                                  QT_TR_NOOP("Validity of the result in its format"), QT_TR_NOOP("Time of the strategy itself"),
                                                  QT_TR_NOOP("What happened, or why nothing did")};
    if (role == Qt::DisplayRole)
        return tr(titles[section]);
    if (role == Qt::ToolTipRole)
        return tr(tips[section]);
    if (role == Qt::TextAlignmentRole && section != StrategyColumn && section != SourceColumn && section != NoteColumn)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant CompareModel::display(const Entry &e, int column) const
{
    const QLocale loc;
    if (column == StrategyColumn)
        return e.base.isEmpty() ? QStringLiteral("%1 (%2)").arg(e.title, e.name) : QStringLiteral("\u21b3 %1").arg(e.title);
    if (column == SourceColumn)
        return e.source;
    if (!e.row)
        return column == NoteColumn ? tr("not run") : QString();
    const strategy::CompareRow &r = *e.row;
    const strategy::Stats &s = r.result.stats;
    if (!r.error.empty())
        return column == NoteColumn ? qs(r.error) : column == ValidityColumn ? validityText(r)
                                                                             : QVariant(QString());
    switch (column) {
    case ChangedColumn:
        return r.result.changed ? tr("yes") : tr("no");
    case TokensColumn:
        return QStringLiteral("%1 \u2192 %2").arg(loc.toString(s.liveBefore), loc.toString(s.liveAfter));
    case ReductionColumn:
        return percent(s.liveReduction);
    case MessagesColumn:
        return loc.toString(qulonglong(s.messagesAfter));
    case EfficiencyColumn:
        return loc.toString(s.efficiency, 'f', 3);
    case FactsColumn:
        return s.factsTotal == 0 ? QStringLiteral("\u2014") : percent(s.factRetention);
    case CostColumn: {
        const auto c = modelCost(r.result);
        return c ? costText(*c) : QString();
    }
    case NextTurnColumn:
    case NextTurnsColumn: {
        const auto it = r.result.extra.is_object() ? r.result.extra.find("nextTurns") : r.result.extra.end();
        if (it == r.result.extra.end())
            return QString();
        if (it->contains("error"))
            return tr("unknown");
        const double v = (*it)[column == NextTurnColumn ? "first" : "total"].get<double>();
        return QStringLiteral("$%1").arg(loc.toString(v, 'f', 4));
    }
    case CacheColumn:
        return QStringLiteral("%1 (%2)").arg(loc.toString(s.cachePrefixTokens), percent(s.cachePrefixShare));
    case ValidityColumn:
        return validityText(r);
    case TimeColumn:
        return QStringLiteral("%1 ms").arg(loc.toString(s.millis, 'f', s.millis < 10 ? 2 : 1));
    case NoteColumn:
        return qs(r.result.note);
    default:
        return {};
    }
}

QVariant CompareModel::sortValue(const Entry &e, int column) const
{
    if (column == StrategyColumn)
        return e.title;
    if (column == SourceColumn)
        return e.source;
    if (!e.row || !e.row->error.empty())
        return column == NoteColumn && e.row ? QVariant(qs(e.row->error)) : QVariant();
    const strategy::Result &r = e.row->result;
    const strategy::Stats &s = r.stats;
    switch (column) {
    case ChangedColumn:
        return r.changed ? 1.0 : 0.0;
    case TokensColumn:
        return double(s.liveAfter);
    case ReductionColumn:
        return s.liveReduction;
    case MessagesColumn:
        return double(s.messagesAfter);
    case EfficiencyColumn:
        return s.efficiency;
    case FactsColumn:
        return s.factRetention;
    case CostColumn: {
        const auto c = modelCost(r);
        return c ? QVariant(c->dollars.value_or(-1.0)) : QVariant();
    }
    case NextTurnColumn:
    case NextTurnsColumn: {
        const auto it = r.extra.is_object() ? r.extra.find("nextTurns") : r.extra.end();
        if (it == r.extra.end() || it->contains("error"))
            return QVariant();
        return (*it)[column == NextTurnColumn ? "first" : "total"].get<double>();
    }
    case CacheColumn:
        return double(s.cachePrefixTokens);
    case ValidityColumn:
        return double(r.violations.size());
    case TimeColumn:
        return s.millis;
    case NoteColumn:
        return qs(r.note);
    default:
        return {};
    }
}

QVariant CompareModel::tooltip(const Entry &e, int column) const
{
    const QLocale loc;
    if ((column == StrategyColumn || column == SourceColumn) && !e.base.isEmpty())
        return tr("%1 run again with the configured model writing its summaries; activate the row to preview it "
                  "with the model (a cached answer costs nothing)")
            .arg(e.base);
    if (column == StrategyColumn || column == SourceColumn || !e.row) {
        const strategy::Strategy *s = strategy::find(e.name.toStdString());
        QString text = QStringLiteral("%1 (%2)\n%3").arg(e.title, e.name, e.source);
        if (s)
            text += u'\n' + QString::fromUtf8(s->description().data(), qsizetype(s->description().size()));
        return text;
    }
    const strategy::CompareRow &r = *e.row;
    const strategy::Stats &s = r.result.stats;
    switch (column) {
    case TokensColumn:
        return tr("%1 tokens saved from the live context (the agent's count, fixed part included); the conversation alone, by the plain estimate: %2 \u2192 %3 (%4 less)")
            .arg(loc.toString(s.liveBefore - s.liveAfter), loc.toString(s.tokensBefore), loc.toString(s.tokensAfter), percent(s.reduction));
    case MessagesColumn:
        return tr("%1 \u2192 %2 messages (%3 original kept, %4 inserted)")
            .arg(loc.toString(qulonglong(s.messagesBefore)), loc.toString(qulonglong(s.messagesAfter)),
                 loc.toString(qulonglong(s.originalKept)), loc.toString(qulonglong(s.inserted)));
    case FactsColumn:
        return tr("%1 of %2 facts kept").arg(s.factsKept).arg(s.factsTotal);
    case NextTurnColumn:
    case NextTurnsColumn: {
        const auto it = r.result.extra.is_object() ? r.result.extra.find("nextTurns") : r.result.extra.end();
        if (it == r.result.extra.end())
            return tr("Set Cost over N turns to see it");
        if (it->contains("error"))
            return qs((*it)["error"].get<std::string>());
        const int be = (*it)["breakEven"].get<int>();
        return tr("No compaction: $%1 next turn, $%2 over %3 turns. %4")
            .arg(loc.toString((*it)["baselineFirst"].get<double>(), 'f', 4), loc.toString((*it)["baselineTotal"].get<double>(), 'f', 4))
            .arg((*it)["turns"].get<int>())
            .arg(be > 0 ? tr("Pays for its cache rewrite from turn %1.").arg(be) : tr("Never cheaper than no compaction."));
    }
    case CostColumn:
        return modelCost(r.result) ? tr("Input and output tokens of the model calls at the price table's rates "
                                        "(a cached answer costs nothing)")
                                   : tr("Rule-based summaries: no model call");
    case ValidityColumn: {
        QStringList lines;
        for (std::size_t i = 0; i < r.result.violations.size() && i < 10; ++i)
            lines << tr("message %1: %2").arg(r.result.violations[i].message + 1).arg(qs(r.result.violations[i].reason));
        if (r.result.violations.size() > 10)
            lines << tr("\u2026 %1 more").arg(r.result.violations.size() - 10);
        return lines.isEmpty() ? QVariant(tr("valid in its format")) : QVariant(lines.join(u'\n'));
    }
    case NoteColumn:
        return r.error.empty() ? qs(r.result.note) : qs(r.error);
    default:
        return {};
    }
}

QVariant CompareModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Entry &e = m_entries[std::size_t(index.row())];
    const int column = index.column();
    switch (role) {
    case Qt::DisplayRole:
        return display(e, column);
    case Qt::ToolTipRole:
        return tooltip(e, column);
    case Qt::CheckStateRole:
        return column == StrategyColumn && e.base.isEmpty() ? QVariant(e.checked ? Qt::Checked : Qt::Unchecked) : QVariant();
    case Qt::TextAlignmentRole:
        if (column == StrategyColumn || column == SourceColumn || column == NoteColumn || column == ChangedColumn)
            return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case CompareSortRole:
        return sortValue(e, column);
    case StrategyNameRole:
        return e.name;
    case HasResultRole:
        return e.row.has_value();
    default:
        return {};
    }
}

} // namespace cl::gui
