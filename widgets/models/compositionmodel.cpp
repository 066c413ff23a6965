// SPDX-License-Identifier: MIT
#include "widgets/models/compositionmodel.h"

#include "widgets/models/compositiongeometry.h"

#include <QLocale>

namespace cl::gui {

namespace cp = cl::composition;

CompositionModel::CompositionModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void CompositionModel::setComposition(std::shared_ptr<const cp::Composition> composition)
{
    beginResetModel();
    m_c = std::move(composition);
    endResetModel();
}

void CompositionModel::setDark(bool dark)
{
    if (dark == m_dark)
        return;
    m_dark = dark;
    if (rowCount() > 0)
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, 0), {Qt::DecorationRole});
}

const cp::Category *CompositionModel::category(int row) const
{
    if (!m_c || row < 0 || row >= int(m_c->categories.size()))
        return nullptr;
    return &m_c->categories[std::size_t(row)];
}

int CompositionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_c ? 0 : int(m_c->categories.size());
}

int CompositionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString CompositionModel::shortTokens(qint64 tokens)
{
    if (tokens >= 1000 || tokens <= -1000)
        return QString::number(double(tokens) / 1000.0, 'f', 1) + QStringLiteral(" K");
    return QString::number(tokens);
}

QString CompositionModel::tooltip(const cp::Category &c) const
{
    QString s = QStringLiteral("<b>%1</b>: %2 tokens").arg(QString::fromStdString(c.label).toHtmlEscaped(), QLocale().toString(qlonglong(c.tokens)));
    if (c.key == "free")
        s += tr("<br>room left before the agent's reserved buffer");
    else if (c.key == "reserved" && m_c)
        s += QStringLiteral("<br>") + QString::fromStdString(m_c->reservedHow).toHtmlEscaped();
    else if (c.key == "thinking" && m_c)
        s += tr("<br>%1 of it belongs to earlier responses (clearing thinking drops it)")
                 .arg(QLocale().toString(qlonglong(m_c->earlierThinking)));
    else if (c.key == "framing")
        s += tr("<br>per-message overhead the blocks do not explain");
    else if (c.group == cp::Group::Fixed && m_c)
        s += tr("<br>sent with every request; %1").arg(QString::fromStdString(m_c->fixedSource).toHtmlEscaped());
    if (!c.messages.empty())
        s += tr("<br>in %n message(s); click to show only them", nullptr, int(c.messages.size()));
    if (!c.top.empty()) {
        s += tr("<br><br>Largest:");
        for (const auto &it : c.top) {
            QString where = it.message >= 0 ? tr(" (message %1)").arg(it.message + 1) : QString();
            s += QStringLiteral("<br>%1 &nbsp;%2%3")
                     .arg(shortTokens(it.tokens), QString::fromStdString(it.label).left(90).toHtmlEscaped(), where);
        }
    }
    return s;
}

QVariant CompositionModel::data(const QModelIndex &index, int role) const
{
    const cp::Category *c = index.isValid() ? category(index.row()) : nullptr;
    if (!c)
        return {};
    const bool space = c->group == cp::Group::Space;
    const qint64 whole = space ? m_c->window : m_c->total;
    const double share = whole > 0 ? double(c->tokens) / double(whole) : 0.0;
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case CategoryColumn: return QString::fromStdString(c->label);
        case TokensColumn: return QLocale().toString(qlonglong(c->tokens));
        case ShareColumn:
            return space ? tr("%1 % of window").arg(QString::number(share * 100, 'f', 1))
                         : QStringLiteral("%1 %").arg(QString::number(share * 100, 'f', 1));
        case ItemsColumn: return space ? QVariant() : QVariant(qulonglong(c->items));
        }
        break;
    case Qt::DecorationRole:
        if (index.column() == CategoryColumn)
            return compositionColor(c->key, m_dark);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() != CategoryColumn)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case Qt::ToolTipRole: return tooltip(*c);
    case CategoryKeyRole: return QString::fromStdString(c->key);
    case GroupRole: return int(c->group);
    case Qt::UserRole: // sort value
        return index.column() == CategoryColumn ? QVariant(QString::fromStdString(c->label)) : QVariant(qlonglong(c->tokens));
    }
    return {};
}

QVariant CompositionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case CategoryColumn: return tr("Category");
    case TokensColumn: return tr("Tokens");
    case ShareColumn: return tr("Share");
    case ItemsColumn: return tr("Items");
    }
    return {};
}

} // namespace cl::gui
