// SPDX-License-Identifier: MIT
#pragma once

#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QTimer>

namespace cl::gui {

// Filters the transcript tree by FilterTextRole. Recursive: a block that matches keeps its
// message visible. Plain text is escaped so that "a.b" means the three characters.
class TranscriptFilterModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    static constexpr int kDebounceMs = 300;

    explicit TranscriptFilterModel(QObject *parent = nullptr);

    // Applies the pattern at once.
    void setPattern(const QString &text, bool isRegex);
    // Applies the pattern after kDebounceMs without a further call, so typing stays fluent.
    void setPatternDebounced(const QString &text, bool isRegex);
    void setHideMetaEvents(bool hide);

    QString patternText() const { return m_text; }
    bool isRegex() const { return m_regex; }
    bool isPatternValid() const { return m_expression.isValid(); }
    bool hideMetaEvents() const { return m_hideMeta; }
    bool isPending() const { return m_debounce.isActive(); }

Q_SIGNALS:
    void patternApplied();

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    void applyPending();

    QTimer m_debounce;
    QString m_text;
    QString m_pendingText;
    bool m_regex = false;
    bool m_pendingRegex = false;
    bool m_hideMeta = false;
    QRegularExpression m_expression;
};

} // namespace cl::gui
