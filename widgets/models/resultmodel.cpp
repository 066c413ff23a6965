// SPDX-License-Identifier: MIT
#include "widgets/models/resultmodel.h"

#include "core/util/json.h"
#include "core/tokens/estimator.h"
#include "widgets/models/fatecolors.h"
#include "widgets/models/roles.h"
#include "widgets/models/transcriptmodel_text.h"

#include <QFont>

namespace cl::gui {

using strategy::Fate;

namespace {

constexpr int kFullTextCap = 20000; // a detail pane needs no more; keeps huge tool results cheap

// The head of a text for fullText(): converting a 100 MB text only to cut it would stall the view.
QString head(std::string_view utf8)
{
    return text::fromUtf8(utf8.substr(0, std::size_t(kFullTextCap) * 4));
}

QString fullText(const Message &m)
{
    QString out;
    for (const Block &b : m.blocks) {
        if (out.size() >= kFullTextCap)
            break;
        if (!out.isEmpty())
            out += QStringLiteral("\n\n");
        switch (b.type) {
        case BlockType::Text: out += head(b.text); break;
        case BlockType::ToolUse:
            out += QStringLiteral("→ %1 %2").arg(text::fromUtf8(b.toolName), head(json::dump(b.input)));
            break;
        case BlockType::ToolResult:
            out += QStringLiteral("← %1%2\n").arg(text::fromUtf8(b.toolName), b.isError ? QStringLiteral(" (error)") : QString())
                   + head(b.text);
            break;
        case BlockType::Thinking: out += QStringLiteral("(thinking)\n") + head(b.text); break;
        default: out += QStringLiteral("[%1] ").arg(text::fromUtf8(blockTypeName(b.type))) + head(b.text); break;
        }
    }
    if (out.isEmpty() && !m.meta.is_null())
        out = head(json::dump(m.meta));
    if (out.size() > kFullTextCap)
        out = out.left(kFullTextCap) + QStringLiteral("\n…");
    return out;
}

} // namespace

ResultModel::ResultModel(Side side, QObject *parent)
    : QAbstractTableModel(parent)
    , m_side(side)
{
}

void ResultModel::setResult(std::shared_ptr<const Transcript> original, std::shared_ptr<const strategy::Result> result)
{
    beginResetModel();
    m_original = std::move(original);
    m_result = m_original ? std::move(result) : nullptr;
    rebuildFolds();
    endResetModel();
}

void ResultModel::setFoldEvents(bool fold)
{
    if (m_fold == fold)
        return;
    m_fold = fold;
    rebuildFolds();
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, RoleColumn), index(rowCount() - 1, RoleColumn), {Qt::DisplayRole});
}

void ResultModel::rebuildFolds()
{
    m_folds.clear();
    if (m_fold)
        m_folds = cl::gui::foldEvents(std::size_t(rowCount()),
                                      [this](std::size_t row) { return fate(int(row)) == Fate::Kept && message(int(row))->isEvent(); });
}

bool ResultModel::isFolded(int row) const
{
    return row >= 0 && std::size_t(row) < m_folds.owner.size() && m_folds.owner[std::size_t(row)] >= 0;
}

void ResultModel::setDarkPalette(bool dark)
{
    if (m_dark == dark)
        return;
    m_dark = dark;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1), {Qt::BackgroundRole, Qt::ForegroundRole});
}

int ResultModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() || !m_original)
        return 0;
    if (m_side == Side::Original)
        return static_cast<int>(m_original->messages.size());
    return m_result ? static_cast<int>(m_result->slots.size()) : 0;
}

int ResultModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

const Message *ResultModel::message(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    if (m_side == Side::Original)
        return &m_original->messages[static_cast<std::size_t>(row)];
    return &m_result->message(*m_original, static_cast<std::size_t>(row));
}

Fate ResultModel::fate(int row) const
{
    if (row < 0 || row >= rowCount() || !m_result)
        return Fate::Kept;
    if (m_side == Side::Result)
        return m_result->slots[static_cast<std::size_t>(row)].fate;
    // A result that failed (bad parameters) carries no fates: everything stays.
    return static_cast<std::size_t>(row) < m_result->fates.size() ? m_result->fates[static_cast<std::size_t>(row)].fate : Fate::Kept;
}

QString ResultModel::reason(int row) const
{
    if (row < 0 || row >= rowCount() || !m_result)
        return {};
    const auto r = static_cast<std::size_t>(row);
    if (m_side == Side::Result)
        return text::fromUtf8(m_result->slotReason(r));
    return r < m_result->fates.size() ? text::fromUtf8(m_result->fates[r].reason) : QString();
}

int ResultModel::partnerRow(int row) const
{
    if (row < 0 || row >= rowCount() || !m_result)
        return -1;
    const auto r = static_cast<std::size_t>(row);
    if (m_side == Side::Result)
        return m_result->slots[r].origin;
    return r < m_result->fates.size() ? m_result->fates[r].slot : -1;
}

QVariant ResultModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const Message &m = *message(row);
    const Fate f = fate(row);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case IndexColumn: {
            if (m_side == Side::Original)
                return row + 1; // numbered from 1, like the transcript
            const int origin = partnerRow(row);
            return origin >= 0 ? QString::number(origin + 1) : QStringLiteral("+");
        }
        case RoleColumn: {
            const int folded = std::size_t(row) < m_folds.count.size() ? m_folds.count[std::size_t(row)] : 0;
            if (folded == 0)
                return text::roleLabel(m);
            return QString(text::roleLabel(m) + QStringLiteral("  \u25b8 ") + (folded == 1 ? tr("1 event") : tr("%1 events").arg(folded)));
        }
        case PreviewColumn: return text::messagePreview(m);
        case TokensColumn: return static_cast<qint64>(tokens::estimateMessage(m));
        case FateColumn: {
            QString label = fateLabel(f);
            // A message whose blocks fared differently says how many changed.
            if (m_side == Side::Original && m_result && static_cast<std::size_t>(row) < m_result->fates.size()) {
                const auto &blocks = m_result->fates[static_cast<std::size_t>(row)].blocks;
                const auto changed = std::count_if(blocks.begin(), blocks.end(), [](strategy::Fate b) { return b != strategy::Fate::Kept; });
                if (changed > 0 && static_cast<std::size_t>(changed) < blocks.size())
                    label += tr(" (%1 of %2 blocks)").arg(changed).arg(blocks.size());
            }
            return label;
        }
        }
        return {};
    case Qt::ToolTipRole: {
        QString tip = text::messageToolTip(m);
        if (m_side == Side::Result)
            tip = tr("slot %1").arg(row) + QLatin1Char('\n') + tip;
        const QString why = reason(row);
        if (f != Fate::Kept || !why.isEmpty())
            tip += QLatin1Char('\n') + fateLabel(f) + (why.isEmpty() ? QString() : QStringLiteral(": ") + why);
        if (m_side == Side::Original && f == Fate::Removed)
            tip += QLatin1Char('\n') + tr("not in the result");
        return tip;
    }
    case Qt::BackgroundRole: {
        const QColor c = fateColor(f, m_dark);
        return c.alpha() == 0 ? QVariant() : QVariant(c);
    }
    case Qt::ForegroundRole:
        if (text::isSecondary(m))
            return QColor(m_dark ? QColor(140, 140, 140) : QColor(120, 120, 120));
        return {};
    case Qt::FontRole:
        // Removed rows read as struck out; inserted summaries stand out.
        if (f == Fate::Removed) {
            QFont font;
            font.setStrikeOut(true);
            return font;
        }
        if (f == Fate::Inserted || m.kind == MessageKind::CompactSummary) {
            QFont font;
            font.setBold(true);
            return font;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == IndexColumn || index.column() == TokensColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case FateRole: return static_cast<int>(f);
    case ReasonRole: return reason(row);
    case SlotRole: return m_side == Side::Result ? row : partnerRow(row);
    case PartnerRowRole: return partnerRow(row);
    case FullTextRole: return fullText(m);
    case MessageIndexRole: return m_side == Side::Original ? row : partnerRow(row);
    case TokensRole: return static_cast<qint64>(tokens::estimateMessage(m));
    case RoleNameRole: return text::fromUtf8(roleName(m.role));
    default: return {};
    }
}

QVariant ResultModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case IndexColumn: return m_side == Side::Original ? tr("#") : tr("from #");
    case RoleColumn: return tr("Role");
    case PreviewColumn: return m_side == Side::Original ? tr("Original") : tr("Result");
    case TokensColumn: return tr("Tokens");
    case FateColumn: return tr("Fate");
    }
    return {};
}

} // namespace cl::gui
